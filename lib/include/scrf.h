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

! return codes of every call (IERROR)
      INTEGER SCR_SUCCESS, SCR_FAILURE
      PARAMETER (SCR_SUCCESS = 0, SCR_FAILURE = 1)

! characters in a file name SCR returns: a CHARACTER*(SCR_MAX_FILENAME)
! variable holds any of them
      INTEGER SCR_MAX_FILENAME
      PARAMETER (SCR_MAX_FILENAME = 1024)

! FLAGS of SCR_START_OUTPUT, added together: a checkpoint, an output
! (always flushed) or both
      INTEGER SCR_FLAG_NONE, SCR_FLAG_CHECKPOINT, SCR_FLAG_OUTPUT
      PARAMETER (SCR_FLAG_NONE = 0, SCR_FLAG_CHECKPOINT = 1)
      PARAMETER (SCR_FLAG_OUTPUT = 2)
