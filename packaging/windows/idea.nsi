; IdeA's Windows installer, compiled on Linux by packaging/windows/build.py with Debian's makensis:
;   makensis -DVERSION=0.1.0 -DSTAGE=<payload folder> -DOUTFILE=<setup.exe> -DSIZE_KB=<n> idea.nsi
;
; Per-user: %LOCALAPPDATA%\Programs\IdeA, no administrator rights, HKCU only. Silent with /S.
; An upgrade replaces the program files and never touches the user's data (%APPDATA%\app.idea.ide: settings,
; projects, logs), which the uninstaller also keeps unless asked (the question, or /REMOVEDATA with /S).

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma
SetCompressorDictSize 64
RequestExecutionLevel user
ManifestSupportedOS Win10
ManifestDPIAware true

!define APP "IdeA"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\IdeA"
!define UNINSTALLER "Uninstall IdeA.exe"
!define USER_DATA "$APPDATA\app.idea.ide"
!define ENV_KEY "Environment"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"
!include "StrFunc.nsh"
!include "WinMessages.nsh"
${StrStr}
${UnStrRep}

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\IdeA"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
BrandingText "${APP} ${VERSION}"
VIProductVersion "${VERSION_QUAD}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} setup"
VIAddVersionKey "LegalCopyright" "GNU GPL version 3 or later"

!define MUI_ICON "${STAGE}\idea.ico"
!define MUI_UNICON "${STAGE}\idea.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\IdeA.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start IdeA"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; A running IdeA holds its interpreter's DLL: replacing or removing the program under it would break it.
; Opening that DLL for writing fails while any IdeA process (GUI, bridge, hook relay) runs.
!macro RefuseWhileRunning LABEL
  ${If} ${FileExists} "$INSTDIR\python\python313.dll"
    ${LABEL}_retry:
    ClearErrors
    FileOpen $0 "$INSTDIR\python\python313.dll" a
    ${If} ${Errors}
      MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION \
        "IdeA is running. Close every IdeA window (its agents stop with it), then choose Retry." \
        /SD IDCANCEL IDRETRY ${LABEL}_retry
      SetErrorLevel 3
      Abort "IdeA is running: close it, then run this again."
    ${EndIf}
    FileClose $0
  ${EndIf}
!macroend

Section "IdeA" SecMain
  SetShellVarContext current
  !insertmacro RefuseWhileRunning install
  ; An older version's program files go first (a module that no longer exists must not linger); the
  ; user's data lives elsewhere and is not touched.
  RMDir /r "$INSTDIR\python"
  RMDir /r "$INSTDIR\bin"
  SetOutPath "$INSTDIR"
  File /r "${STAGE}\*"
  WriteUninstaller "$INSTDIR\${UNINSTALLER}"

  CreateShortCut "$SMPROGRAMS\IdeA.lnk" "$INSTDIR\IdeA.exe" "" "$INSTDIR\idea.ico" 0

  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "The IdeA authors"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\idea.ico"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" ${SIZE_KB}

  Call AddBinToPath
SectionEnd

; `idea` in new terminals: $INSTDIR\bin (only the console launcher lives there) at the end of the user's
; PATH. NSIS strings hold 1023 characters: a longer PATH is left alone rather than cut, and the user told.
Function AddBinToPath
  ClearErrors
  ReadRegStr $0 HKCU "${ENV_KEY}" "Path"
  StrLen $1 $0
  ${If} $1 >= 1000
    DetailPrint "Your PATH is too long to be edited safely: add $INSTDIR\bin to it yourself for the idea command."
    Return
  ${EndIf}
  ${StrStr} $2 "$0;" "$INSTDIR\bin;"
  ${If} $2 != ""
    Return
  ${EndIf}
  ${If} $0 == ""
    WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$INSTDIR\bin"
  ${Else}
    WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$0;$INSTDIR\bin"
  ${EndIf}
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=2000
FunctionEnd

Function un.RemoveBinFromPath
  ReadRegStr $0 HKCU "${ENV_KEY}" "Path"
  StrLen $1 $0
  ${If} $1 >= 1000
    Return
  ${EndIf}
  ${UnStrRep} $2 "$0" ";$INSTDIR\bin" ""
  ${UnStrRep} $2 "$2" "$INSTDIR\bin;" ""
  ${UnStrRep} $2 "$2" "$INSTDIR\bin" ""
  ${If} $2 != $0
    WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$2"
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=2000
  ${EndIf}
FunctionEnd

Section "Uninstall"
  SetShellVarContext current
  !insertmacro RefuseWhileRunning uninstall
  Delete "$SMPROGRAMS\IdeA.lnk"
  Call un.RemoveBinFromPath
  RMDir /r "$INSTDIR\python"
  RMDir /r "$INSTDIR\bin"
  Delete "$INSTDIR\IdeA.exe"
  Delete "$INSTDIR\idea.ico"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"

  ; The user's settings, projects list and logs stay unless asked for: a question (No by default), or
  ; /REMOVEDATA on the command line (silent uninstalls keep them otherwise).
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/REMOVEDATA" $1
  ${IfNot} ${Errors}
    RMDir /r "${USER_DATA}"
  ${Else}
    MessageBox MB_YESNO|MB_ICONQUESTION|MB_DEFBUTTON2 \
      "Also remove your IdeA settings, projects list and logs (${USER_DATA})?$\n$\nYour projects' own files are never removed." \
      /SD IDNO IDNO keep_data
    RMDir /r "${USER_DATA}"
    keep_data:
  ${EndIf}
SectionEnd
