! SPDX-License-Identifier: BSD-3-Clause
! fortran_example.f90 - the Fortran binding end to end: configure, write a
! checkpoint through SCR_ROUTE_FILE, and on the second run restart from it
! and check the data; the same for a memory checkpoint (SCR_PROTECT,
! SCR_CHECKPOINT, SCR_RECOVER).  SCR runs on a communicator of its own
! (SCR_INIT_COMM: the ranks in reverse order, so not MPI_COMM_WORLD): even
! ranks call the module's subroutine, odd ranks libscrf's external one, as
! a program that INCLUDEs 'scrf.h' would.  Prints "fortran: ok" on rank 0
! when all is well.
program fortran_example
  use mpi
  use scr, SCR_INIT_COMM_MODULE => SCR_INIT_COMM
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, rank, flag, valid, ios, comm, wrank
  external :: SCR_INIT_COMM
  character(len=SCR_MAX_FILENAME) :: path, name, val
  character(len=64) :: fname
  integer :: data(100), i
  real(c_double), target :: mem(1000)
  integer(c_int64_t) :: stored

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, wrank, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, 0, -wrank, comm, ierr)
  call MPI_COMM_RANK(comm, rank, ierr)
  call SCR_CONFIG("SCR_CACHE_SIZE=2", val, ierr)
  call SCR_CONFIG("SCR_CACHE_SIZE", val, ierr)
  if (trim(val) /= "2") call fail("SCR_CONFIG query returned '" // trim(val) // "'")
  if (mod(wrank, 2) == 0) then
    call SCR_INIT_COMM_MODULE(comm, ierr)
  else
    call SCR_INIT_COMM(comm, ierr)
  end if
  if (ierr /= SCR_SUCCESS) call fail("SCR_INIT_COMM")
  call SCR_INIT(ierr)
  if (ierr == SCR_SUCCESS) call fail("SCR_INIT after SCR_INIT_COMM succeeded")
  write (fname, '(a,i0,a)') 'fdata_', rank, '.bin'

  call SCR_PROTECT(7, c_loc(mem), size(mem, kind=c_int64_t), 8_c_int64_t, ierr)
  if (ierr /= SCR_SUCCESS) call fail("SCR_PROTECT")
  call SCR_HAVE_RESTART(flag, name, ierr)
  if (flag == 1 .and. trim(name) == "fmem.2") then
    call SCR_STORED_SIZE(7, stored, ierr)
    if (stored /= 8000) call fail("SCR_STORED_SIZE")
    mem = 0
    call SCR_RECOVER(ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_RECOVER")
    do i = 1, 1000
      if (abs(mem(i) - (rank + i * 0.5d0)) > 0.0d0) call fail("recovered memory differs")
    end do
    if (rank == 0) print '(a)', 'fortran: recovered fmem.2'
    call SCR_CURRENT("fckpt.1", ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_CURRENT fckpt.1")
    call SCR_HAVE_RESTART(flag, name, ierr)
  end if
  if (flag == 1) then
    call SCR_START_RESTART(name, ierr)
    call SCR_ROUTE_FILE(fname, path, ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_ROUTE_FILE at restart")
    open (unit=10, file=trim(path), form='unformatted', access='stream', iostat=ios)
    read (10, iostat=ios) data
    close (10)
    valid = 1
    do i = 1, 100
      if (data(i) /= rank * 1000 + i) valid = 0
    end do
    call SCR_COMPLETE_RESTART(valid, ierr)
    if (ierr /= SCR_SUCCESS) call fail("restart data differs")
    if (rank == 0) print '(a,a)', 'fortran: restarted from ', trim(name)
  else
    call SCR_START_OUTPUT("fckpt.1", SCR_FLAG_CHECKPOINT, ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_START_OUTPUT")
    call SCR_ROUTE_FILE(fname, path, ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_ROUTE_FILE")
    do i = 1, 100
      data(i) = rank * 1000 + i
    end do
    open (unit=10, file=trim(path), form='unformatted', access='stream', status='replace')
    write (10) data
    close (10)
    call SCR_COMPLETE_OUTPUT(1, ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_COMPLETE_OUTPUT")
    if (rank == 0) print '(a)', 'fortran: wrote fckpt.1'
    do i = 1, 1000
      mem(i) = rank + i * 0.5d0
    end do
    call SCR_CHECKPOINT("fmem.2", ierr)
    if (ierr /= SCR_SUCCESS) call fail("SCR_CHECKPOINT")
  end if
  call SCR_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'fortran: ok'
  call MPI_FINALIZE(ierr)

contains
  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    print '(a,i0,a,a)', 'fortran: rank ', rank, ': FAILED: ', msg
    call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
  end subroutine
end program
