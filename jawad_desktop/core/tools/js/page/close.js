  Object.defineProperty(window, "__jawad", { value: J, writable: false, configurable: true });
})();
