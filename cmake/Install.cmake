# `cmake --install BUILD --prefix P` puts a cluster installation under one prefix:
#   P/bin/wordsens                 the executable
#   P/bin/wordsens-report          the report (a launcher of the analysis package in the venv)
#   P/share/wordsens/jobs/         the job scripts, configurations and Slurm scripts
#   P/share/wordsens/analysis/     the analysis package's sources (wordsens-report runs from here too)
#   P/share/wordsens/tests/fixtures/embeddings/good.h5   the texts of `reproduce_paper.sh --tiny`'s
#                                  real-text study
#   P/lib/wordsens/venv/           a venv (with the system's site packages: h5py, numpy, scipy,
#                                  pandas, matplotlib) holding the analysis package, pip-installed
#                                  offline
# The installation is relocatable: P may be moved as a whole. The scripts run directly find the
# rest from their own place; the Slurm scripts are spooled by sbatch, so they cannot: the install
# writes the prefix into them (WORDSENS_INSTALLED_HOME), and reproduce_paper.sh --slurm and
# submit_array.sh pass the installation's current place to the jobs (WORDSENS_HOME).
# tests/packaging/install_prefix.sh and install_moved.sh test it.
include(GNUInstallDirs)
install(TARGETS wordsens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/jobs
        USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/analysis/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/analysis USE_SOURCE_PERMISSIONS
        PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE PATTERN "build" EXCLUDE
        PATTERN "cache" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff
              ${PROJECT_SOURCE_DIR}/VERSION
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/docs)
install(FILES ${PROJECT_SOURCE_DIR}/tests/fixtures/embeddings/good.h5
              ${PROJECT_SOURCE_DIR}/tests/fixtures/embeddings/whole.h5
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wordsens/tests/fixtures/embeddings)
install(CODE "set(WORDSENS_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
              set(WORDSENS_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
              set(WORDSENS_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/InstallScripts.cmake)
