# cmake -DAGENTTASK=BINARY -DOUT=DIR -P man.cmake
#
# The man pages, from the binary just built: agenttask.1 and one page per
# command, each `agenttask help --man [COMMAND]`. The text is the command
# table's (cmd/commands.c) and the option tables', the same as --help prints.
cmake_minimum_required(VERSION 3.18)
# The commands: `agenttask help --complete` prints one "NAME|OPERAND|SUMMARY" a line.
execute_process(COMMAND ${AGENTTASK} help --complete OUTPUT_VARIABLE list RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "${AGENTTASK} help --complete failed: ${rc}")
endif()
# (No ^ in the pattern: MATCHALL anchors it again after each match.)
string(REGEX MATCHALL "\n[a-z]+\\|" names "\n${list}")
file(MAKE_DIRECTORY ${OUT})
set(pages "")
foreach(raw "overview" ${names})
	string(REGEX REPLACE "[\n|]" "" cmd "${raw}")
	if(cmd STREQUAL "overview")
		set(page agenttask.1)
		set(cmd "")
	else()
		set(page agenttask-${cmd}.1)
	endif()
	execute_process(COMMAND ${AGENTTASK} help --man ${cmd} OUTPUT_FILE ${OUT}/${page}
		RESULT_VARIABLE rc)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "${AGENTTASK} help --man ${cmd} failed: ${rc}")
	endif()
	list(APPEND pages ${page})
endforeach()
list(LENGTH pages n)
if(n LESS 2)
	message(FATAL_ERROR "no commands found in `${AGENTTASK} help --complete`")
endif()
# Pages of commands that no longer exist must not be installed.
file(GLOB old RELATIVE ${OUT} ${OUT}/*.1)
foreach(page ${old})
	if(NOT page IN_LIST pages)
		file(REMOVE ${OUT}/${page})
	endif()
endforeach()
