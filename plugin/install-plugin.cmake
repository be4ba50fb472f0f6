# install-plugin.cmake: copies meterscope.so to where the installed Wireshark
# loads it for whoever runs the install. tshark run as root ignores personal
# plugins, so root gets the global folder and everyone else the personal one.
#
# Inputs: METERSCOPE_SO (the module), WS_GLOBAL_PLUGIN_DIR (…/plugins/4.0),
# WS_PLUGIN_VERSION_DIR (4.0), METERSCOPE_PLUGIN_DIR (an override; may be empty).
set(dir "${METERSCOPE_PLUGIN_DIR}")
if(NOT dir)
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(uid STREQUAL "0")
    set(dir "${WS_GLOBAL_PLUGIN_DIR}/epan")
  else()
    set(dir "$ENV{HOME}/.local/lib/wireshark/plugins/${WS_PLUGIN_VERSION_DIR}/epan")
  endif()
endif()
file(INSTALL "${METERSCOPE_SO}" DESTINATION "${dir}")
