; Inno Setup script: the Windows installer of the one-folder bundle PyInstaller made in
; dist\jawad-desktop (packaging\jawad-desktop.spec). Built by .github\workflows\packaging.yml:
;   ISCC.exe packaging\windows\jawad-desktop.iss   ->   dist\jawad-desktop-setup.exe
; Installs per user (no administrator rights), adds a Start-menu shortcut and an uninstaller.
#define AppName "Jawad Desktop"
#define AppExe "jawad-desktop.exe"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif

[Setup]
AppId={{6A0E4C1B-3F7D-4E52-9A51-4A2B7D7C9E10}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=Jawad Desktop developers
DefaultDirName={localappdata}\Programs\Jawad Desktop
DefaultGroupName={#AppName}
PrivilegesRequired=lowest
OutputDir=..\..\dist
OutputBaseFilename=jawad-desktop-setup
SetupIconFile=..\..\resources\icons\jawad.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
WizardStyle=modern

[Files]
Source: "..\..\dist\jawad-desktop\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{group}\Uninstall {#AppName}"; Filename: "{uninstallexe}"

[Run]
Filename: "{app}\{#AppExe}"; Description: "Start {#AppName}"; Flags: nowait postinstall skipifsilent
