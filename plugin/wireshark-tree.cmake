# wireshark-tree.cmake: builds meterscope.so inside Wireshark's own source
# tree, the way Wireshark's custom plugins are built on Windows and macOS
# (README.md, "Wireshark on Windows or macOS"). plugin/CMakeLists.txt hands
# over to this file when the project being built is Wireshark. The same
# sources as the standalone build; common/ is copied into the plugin folder
# (plugins/epan/meterscope/common).
# Not built by the test suite (that needs all of Wireshark built from source).
include(WiresharkPlugin)
set_module_info(meterscope 0 1 0 0)

file(GLOB PLUGIN_FILES RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} core/*.c epan/*.c common/*.c)
add_wireshark_plugin_library(meterscope epan)
target_compile_definitions(meterscope PRIVATE METERSCOPE_VERSION="${PLUGIN_VERSION}")
target_include_directories(meterscope PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/core ${CMAKE_CURRENT_SOURCE_DIR}/epan
                                              ${CMAKE_CURRENT_SOURCE_DIR}/common
                                              ${GCRYPT_INCLUDE_DIRS})
target_link_libraries(meterscope epan ${GCRYPT_LIBRARIES})
install_plugin(meterscope epan)
