# Run by `cmake --install` after the files are copied (cmake/Install.cmake): writes the prefix
# into the installed Slurm and job scripts (the spooled Slurm scripts' only way to find the
# installation; the others only learn from it that they are installed), and installs the
# analysis package into a venv.
set(prefix "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(home "${CMAKE_INSTALL_PREFIX}/${WORDSENS_DATADIR}/wordsens")
# The scripts carry the line `WORDSENS_INSTALLED_HOME=""`; an installed copy names its home.
file(GLOB scripts "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs/*.sh"
     "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs/slurm/*.sbatch"
     "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs/slurm/*.sh")
foreach(script IN LISTS scripts)
  file(READ "${script}" text)
  string(REPLACE "WORDSENS_INSTALLED_HOME=\"\"" "WORDSENS_INSTALLED_HOME=\"${home}\"" text
                 "${text}")
  file(WRITE "${script}" "${text}")
endforeach()
message(STATUS "Installed scripts know their home: ${home}")

# The analysis package, offline, into a venv that sees Debian's h5py, numpy, scipy, pandas and
# matplotlib; its wordsens-report beside wordsens in bin/.
find_program(system_python NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT system_python)
  message(WARNING "python3 not found: the analysis package is not installed (wordsens-report "
                  "still runs from ${home}/analysis)")
  return()
endif()
set(venv "${prefix}/${WORDSENS_LIBDIR}/wordsens/venv")
execute_process(COMMAND ${system_python} -m venv --system-site-packages --clear "${venv}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python3 -m venv failed (install Debian's python3-venv)")
endif()
# pip builds in its source folder: from a scratch copy, not the installed sources.
set(scratch "${prefix}/${WORDSENS_LIBDIR}/wordsens/analysis-build")
file(REMOVE_RECURSE "${scratch}")
file(COPY "${prefix}/${WORDSENS_DATADIR}/wordsens/analysis/" DESTINATION "${scratch}")
execute_process(COMMAND "${venv}/bin/python" -m pip install -q --no-index --no-build-isolation
                        "${scratch}" RESULT_VARIABLE rc)
file(REMOVE_RECURSE "${scratch}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install of the analysis package failed")
endif()
# The venv's interpreter, relative to jobs/ (a moved installation still finds it).
file(RELATIVE_PATH venv_python "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs"
     "${venv}/bin/python")
file(READ "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs/find_python.sh" text)
string(REPLACE "WORDSENS_INSTALLED_PYTHON=\"\"" "WORDSENS_INSTALLED_PYTHON=\"${venv_python}\""
               text "${text}")
file(WRITE "${prefix}/${WORDSENS_DATADIR}/wordsens/jobs/find_python.sh" "${text}")
# bin/wordsens-report: a launcher that finds the venv from its own place (the venv's console
# script names its interpreter by absolute path, which a move breaks).
file(RELATIVE_PATH bin_to_python "${prefix}/${WORDSENS_BINDIR}" "${venv}/bin/python")
set(launcher "${prefix}/${WORDSENS_BINDIR}/wordsens-report")
file(REMOVE "${launcher}")
file(WRITE "${launcher}" "#!/bin/sh
# wordsens-report of this installation (written by cmake --install): the analysis package in the
# installation's venv, found from this file's own place, so that the installation may be moved.
here=$(dirname \"$(readlink -f \"$0\")\")
exec \"$here/${bin_to_python}\" -c 'import sys
from wordsens_analysis.report import main
sys.exit(main())' \"$@\"
")
file(CHMOD "${launcher}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
message(STATUS "Installed the analysis package: ${venv}, ${launcher}")
