// ESLint's rules for the page scripts (jawad_desktop/core/tools/js): the page library, linted as the one
// script its modules are joined into (core/tools/page.py, page_script), and jawad_clicks.js. Both are
// plain browser scripts in ES2022 (what QtWebEngine's Chromium runs), each inside one function.
// Run by tests/page_script/test_lint.py, which feeds each script on stdin and maps the joined
// script's lines back to its modules.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: {
        ...globals.browser,
        // Mozilla's Readability, injected ahead of the library in the main frame only (page.py, READER).
        __jawadReader: "readonly",
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-redeclare": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
      "no-use-before-define": ["error", { functions: false, classes: true, variables: false }],
      "eqeqeq": ["error", "smart"],
      "no-implicit-globals": "error",
      "no-var": "off",
      "strict": ["error", "function"],
      "no-unreachable-loop": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unmodified-loop-condition": "error",
      "no-constant-binary-expression": "error",
      "no-eval": "error",
      "no-new-func": "error",
      "no-caller": "error",
      "no-loop-func": "off",
      "no-throw-literal": "error",
    },
  },
];
