# `cmake --install BUILD --prefix P` puts a cluster installation under one prefix:
#   P/bin/wordsens                 the executable
#   P/bin/wordsens-report          the report (console script of the analysis package)
#   P/share/wordsens/jobs/         the job scripts, configurations and Slurm scripts
#   P/share/wordsens/analysis/     the analysis package's sources (wordsens-report runs from here too)
#   P/lib/wordsens/venv/           a venv (with the system's site packages: h5py, numpy, scipy,
#                                  pandas, matplotlib) holding the analysis package, pip-installed
#                                  offline
# The Slurm scripts are spooled by sbatch, so they cannot find their own directory: the install
# writes the prefix into them (WORDSENS_INSTALLED_HOME), and they find P/bin/wordsens and the job
# scripts from there, wherever sbatch is called. tests/packaging/install_prefix.sh tests it.
include(GNUInstallDirs)
install(TARGETS wordsens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/jobs
        USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/analysis/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/analysis USE_SOURCE_PERMISSIONS
        PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE PATTERN "build" EXCLUDE
        PATTERN "cache" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/docs)
install(CODE "set(WORDSENS_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
              set(WORDSENS_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
              set(WORDSENS_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/InstallScripts.cmake)
