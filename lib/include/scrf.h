! SPDX-License-Identifier: BSD-3-Clause
! scrf.h - SCR's constants for Fortran programs that call the external
! subroutines of libscrf (SCR_INIT(IERROR), SCR_ROUTE_FILE(NAME, FILE,
! IERROR), ...), as SCR v3 programs do:
!
!       INCLUDE 'scrf.h'
!
! and link with -lscrf -lscr.  The values are those of scr.h.  Programs
! that "use scr" (the module, scr.mod) get the same names from it and
! must not also include this file.
!
! Written to be read as fixed form (.f, .F: statements from column 7, no
! line beyond column 72) and as free form (.f90, .F90) alike: comments
! start with "!" in column 1 and no statement is continued.

! the return code of a call that succeeded (IERROR); any other value is a
! failure.  Only the names SCR 3.1's scrf.h has are declared, so a program
! that declares more of its own (SCR_FAILURE, say) builds unchanged.
      INTEGER SCR_SUCCESS
      PARAMETER (SCR_SUCCESS = 0)

! characters in a file name SCR returns: a CHARACTER*(SCR_MAX_FILENAME)
! variable holds any of them
      INTEGER SCR_MAX_FILENAME
      PARAMETER (SCR_MAX_FILENAME = 1024)

! FLAGS of SCR_START_OUTPUT, added together: a checkpoint, an output
! (always flushed) or both
      INTEGER SCR_FLAG_NONE, SCR_FLAG_CHECKPOINT, SCR_FLAG_OUTPUT
      PARAMETER (SCR_FLAG_NONE = 0, SCR_FLAG_CHECKPOINT = 1)
      PARAMETER (SCR_FLAG_OUTPUT = 2)
