# wireshark-tree.cmake: builds meterscope.so inside Wireshark's own source
# tree, the way Wireshark's custom plugins are built on Windows and macOS
# (README.md, "Wireshark on Windows or macOS"). plugin/CMakeLists.txt hands
# over to this file when the project being built is Wireshark. The same
# sources as the standalone build; common/utc_text.h is copied beside them.
# Not built by the test suite (that needs all of Wireshark built from source).
include(WiresharkPlugin)
set_module_info(meterscope 0 1 0 0)

set(PLUGIN_FILES
  plugin.c packet-meter.c packet-meter-cfg.c packet-meter-his.c packet-meter-fw.c
  packet-meter-ota.c packet-meter-stats.c packet-meter-stats-table.c
  coap_view.c lowpan_view.c wpan_view.c ota_track.c senml.c mcuboot.c)
add_wireshark_plugin_library(meterscope epan)
target_compile_definitions(meterscope PRIVATE METERSCOPE_VERSION="${PLUGIN_VERSION}")
target_include_directories(meterscope PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${GCRYPT_INCLUDE_DIRS})
target_link_libraries(meterscope epan ${GCRYPT_LIBRARIES})
install_plugin(meterscope epan)
