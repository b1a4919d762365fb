C SPDX-License-Identifier: BSD-3-Clause
! version.f - SCR v3's Fortran interface from an installed SCR, fixed
! form (scrf.h read with statements from column 7, cut at column 72):
! prints SCR_GET_VERSION's string, exit status 1 unless it names v3.1.0.
      PROGRAM VFIXED
      IMPLICIT NONE
      INCLUDE 'scrf.h'
      CHARACTER*(SCR_MAX_FILENAME) VERSION
      INTEGER IERR
      CALL SCR_GET_VERSION(VERSION, IERR)
      IF (IERR .NE. SCR_SUCCESS .OR. INDEX(VERSION, 'v3.1.0') .EQ. 0)
     &    STOP 1
      WRITE (*, '(A)') VERSION(1:LEN_TRIM(VERSION))
      END
