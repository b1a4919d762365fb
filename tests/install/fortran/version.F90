! SPDX-License-Identifier: BSD-3-Clause
! version.F90 - SCR v3's Fortran interface from an installed SCR, free form:
! prints SCR_GET_VERSION's string, exit status 1 unless it names v3.1.0.
! Every other subroutine is called in a branch that never runs, so the
! link shows that libscrf has them all.
program version_free
  implicit none
  include 'scrf.h'
  character(len=SCR_MAX_FILENAME) :: version, path, val
  integer :: ierr, flag

  call SCR_GET_VERSION(version, ierr)
  if (ierr /= SCR_SUCCESS .or. index(version, 'v3.1.0') == 0) stop 1
  print '(a)', trim(version)
  if (command_argument_count() < 1000) stop
  call SCR_CONFIG('SCR_FLUSH=0', val, ierr)
  call SCR_INIT(ierr)
  call SCR_HAVE_RESTART(flag, path, ierr)
  call SCR_START_RESTART(path, ierr)
  call SCR_COMPLETE_RESTART(1, ierr)
  call SCR_NEED_CHECKPOINT(flag, ierr)
  call SCR_START_CHECKPOINT(ierr)
  call SCR_COMPLETE_CHECKPOINT(1, ierr)
  call SCR_START_OUTPUT('out', SCR_FLAG_CHECKPOINT + SCR_FLAG_OUTPUT, ierr)
  call SCR_ROUTE_FILE('out/file', path, ierr)
  call SCR_COMPLETE_OUTPUT(1, ierr)
  call SCR_CURRENT('out', ierr)
  call SCR_DROP('out', ierr)
  call SCR_DELETE('out', ierr)
  call SCR_SHOULD_EXIT(flag, ierr)
  call SCR_FINALIZE(ierr)
  if (SCR_FLAG_NONE /= 0 .or. SCR_SUCCESS /= 0) stop 2
end program
