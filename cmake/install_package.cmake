# Installation for C++ users: libtpustrategy_core as a static and a shared library, every header of
# cpp/tpustrategy, and a CMake package, so that find_package(tpustrategy CONFIG) gives tpustrategy::core (static)
# and tpustrategy::core_shared. The shared library is the static archive linked whole (no second compile).
include(CMakePackageConfigHelpers)

option(TPUSTRATEGY_BUILD_SHARED "Also build libtpustrategy_core as a shared library (installed with the package)" ON)

set_target_properties(tpustrategy_core PROPERTIES EXPORT_NAME core)
target_compile_features(tpustrategy_core PUBLIC cxx_std_20)  # the headers are C++20 (std::span, <=>)
set(_tpustrategy_install_targets tpustrategy_core)
if(TPUSTRATEGY_BUILD_SHARED)
  # A target needs one source of its own; the code comes from the archive.
  file(WRITE ${PROJECT_BINARY_DIR}/tpustrategy_core_shared.cc "// libtpustrategy_core.so: the static archive, linked whole.\n")
  add_library(tpustrategy_core_shared SHARED ${PROJECT_BINARY_DIR}/tpustrategy_core_shared.cc)
  target_link_libraries(tpustrategy_core_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,tpustrategy_core>")
  # What the static library's users get, without re-linking the archive into them.
  target_link_libraries(tpustrategy_core_shared PUBLIC Eigen3::Eigen fmt::fmt Threads::Threads)
  target_compile_definitions(tpustrategy_core_shared PUBLIC EIGEN_MPL2_ONLY)
  target_compile_features(tpustrategy_core_shared PUBLIC cxx_std_20)
  if(MPI_CXX_FOUND)
    target_link_libraries(tpustrategy_core_shared PUBLIC MPI::MPI_CXX)
    target_compile_definitions(tpustrategy_core_shared PUBLIC TPUSTRATEGY_HAVE_MPI)
  endif()
  target_include_directories(tpustrategy_core_shared PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/cpp>
                                                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(tpustrategy_core_shared PROPERTIES OUTPUT_NAME tpustrategy_core EXPORT_NAME core_shared
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  list(APPEND _tpustrategy_install_targets tpustrategy_core_shared)
endif()

if(NOT SKBUILD)  # the wheel ships the Python extension only
  install(TARGETS ${_tpustrategy_install_targets} EXPORT tpustrategyTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/cpp/tpustrategy/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tpustrategy
          FILES_MATCHING PATTERN "*.h")
  set(_tpustrategy_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tpustrategy)
  install(EXPORT tpustrategyTargets NAMESPACE tpustrategy:: DESTINATION ${_tpustrategy_cmake_dir})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tpustrategyConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/tpustrategyConfig.cmake INSTALL_DESTINATION ${_tpustrategy_cmake_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/tpustrategyConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/tpustrategyConfig.cmake ${PROJECT_BINARY_DIR}/tpustrategyConfigVersion.cmake
          DESTINATION ${_tpustrategy_cmake_dir})
endif()
