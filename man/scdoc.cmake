# SPDX-License-Identifier: BSD-3-Clause
# scdoc.cmake - one man page: IN (scdoc source) -> OUT (roff).
#   cmake -DSCDOC=scdoc -DIN=x.1.scd -DOUT=x.1 [-DSCR=path/to/scr]
#         [-DVERSION=v] [-DSYSCONF=/etc/scr.conf] [-DSBINDIR=...] [-DSPANK=...]
#         [-DFLUXPLUGIN=...] -P scdoc.cmake
# @SCR_VERSION@, @SCR_SYSTEM_CONFIG_FILE@, @SCR_SBINDIR@, @SCR_SPANK_PATH@ and
# @SCR_FLUX_PATH@ in the source become -DVERSION, SYSCONF, SBINDIR, SPANK and
# FLUXPLUGIN; a line
# @SCR_PARAMETERS@ becomes what `scr config --list --format=scdoc`
# prints (the parameter table of the scr command that was built).
file(READ ${IN} text)
string(REPLACE "@SCR_VERSION@" "${VERSION}" text "${text}")
string(REPLACE "@SCR_SYSTEM_CONFIG_FILE@" "${SYSCONF}" text "${text}")
string(REPLACE "@SCR_SBINDIR@" "${SBINDIR}" text "${text}")
string(REPLACE "@SCR_SPANK_PATH@" "${SPANK}" text "${text}")
string(REPLACE "@SCR_FLUX_PATH@" "${FLUXPLUGIN}" text "${text}")
if(SCR)
  execute_process(COMMAND ${SCR} config --list --format=scdoc
                  OUTPUT_VARIABLE params RESULT_VARIABLE rc ERROR_VARIABLE errs)
  if(NOT rc EQUAL 0 OR params STREQUAL "")
    message(FATAL_ERROR "${SCR} config --list --format=scdoc failed (${rc}): ${errs}")
  endif()
  string(REPLACE "@SCR_PARAMETERS@\n" "${params}" text "${text}")
endif()
if(text MATCHES "@SCR_[A-Z_]+@")
  message(FATAL_ERROR "${IN}: ${CMAKE_MATCH_0} was not replaced")
endif()
get_filename_component(name ${OUT} NAME)
set(tmp ${OUT}.scd)
file(WRITE ${tmp} "${text}")
execute_process(COMMAND ${SCDOC} INPUT_FILE ${tmp} OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE rc ERROR_VARIABLE errs)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "scdoc ${name}: ${errs}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
