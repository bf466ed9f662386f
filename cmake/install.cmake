# `cmake --install`: the C/C++ package.
#   include/gemmkit/gemmkit.h, gemmkit.hpp
#   lib/libgemmkit.so -> libgemmkit.so.<soversion> -> libgemmkit.so.<version>
#   lib/cmake/gemmkit/gemmkitConfig.cmake, gemmkitConfigVersion.cmake, gemmkitTargets*.cmake
# A consumer writes find_package(gemmkit 0.1 REQUIRED) and links gemmkit::gemmkit
# (examples/consumer/ does exactly that, and CI builds it against an install).
include(CMakePackageConfigHelpers)

set(gemmkit_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gemmkit)

install(TARGETS gemmkit EXPORT gemmkitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/gemmkit/gemmkit.h ${PROJECT_SOURCE_DIR}/include/gemmkit/gemmkit.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gemmkit COMPONENT development)
install(EXPORT gemmkitTargets NAMESPACE gemmkit:: DESTINATION ${gemmkit_cmake_dir} COMPONENT development)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gemmkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gemmkitConfig.cmake
                              INSTALL_DESTINATION ${gemmkit_cmake_dir})
# Before 1.0 a minor version may break the API (see the soname in CMakeLists.txt).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(gemmkit_compatibility SameMinorVersion)
else()
  set(gemmkit_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gemmkitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY ${gemmkit_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/gemmkitConfig.cmake ${PROJECT_BINARY_DIR}/gemmkitConfigVersion.cmake
        DESTINATION ${gemmkit_cmake_dir} COMPONENT development)
