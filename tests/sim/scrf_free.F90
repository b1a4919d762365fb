! SPDX-License-Identifier: BSD-3-Clause
! scrf_free.F90 - an SCR v3 program in free form: "use mpi", INCLUDE
! 'scrf.h' and the external subroutines of libscrf.
!
! First run (no checkpoint yet): checkpoints free.1, free.2 and free.3,
! each rank's file holding the step and N reals that depend on its rank
! and the step.  Second run: SCR_HAVE_RESTART offers free.3; the program
! drops it (SCR_DROP), is offered free.2, asks for it by name
! (SCR_CURRENT; a name not in cache is refused), restarts from it and
! checks every number; then it writes free.4 and deletes it (SCR_DELETE).
! Also checks that a NAME too short for the checkpoint's name gives
! IERROR other than SCR_SUCCESS and a blank NAME.  Lines the test looks for start
! with "scrf-free:".
program scrf_free
  use mpi
  implicit none
  include 'scrf.h'
  integer, parameter :: n = 3000
  real(kind=8) :: x(n)
  integer :: ierr, rank, nprocs, flag, valid, step, ios, i, mine, total
  character(len=32) :: name
  character(len=4) :: tiny
  character(len=SCR_MAX_FILENAME) :: path
  character(len=64) :: fname

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call SCR_INIT(ierr)
  if (ierr /= SCR_SUCCESS) call die('SCR_INIT')

  call SCR_HAVE_RESTART(flag, name, ierr)
  if (ierr /= SCR_SUCCESS) call die('SCR_HAVE_RESTART')

  if (flag == 1) then
    ! the second run
    if (name /= 'free.3') call die('offered ' // trim(name) // ', not free.3')
    tiny = 'x'
    call SCR_HAVE_RESTART(flag, tiny, ierr)
    if (ierr == SCR_SUCCESS .or. flag /= 1 .or. tiny /= ' ') &
      call die('SCR_HAVE_RESTART into character(len=4)')
    call SCR_DROP(name, ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_DROP')
    call SCR_HAVE_RESTART(flag, name, ierr)
    if (ierr /= SCR_SUCCESS .or. flag /= 1 .or. name /= 'free.2') &
      call die('after SCR_DROP: offered ' // trim(name) // ', not free.2')
    call SCR_CURRENT('free.9', ierr)
    if (ierr == SCR_SUCCESS) call die('SCR_CURRENT of a name not in cache')
    call SCR_CURRENT('free.2', ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_CURRENT')
    if (rank == 0) print '(a)', 'scrf-free: dropped free.3, free.2 is current'

    call SCR_START_RESTART(name, ierr)
    if (ierr /= SCR_SUCCESS .or. name /= 'free.2') call die('SCR_START_RESTART')
    write (fname, '(a,a,i0,a)') trim(name), '/data_', rank, '.bin'
    call SCR_ROUTE_FILE(fname, path, ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_ROUTE_FILE at restart')
    x = -1
    step = 0
    open (unit=12, file=path, form='unformatted', access='stream', status='old', &
          action='read', iostat=ios)
    if (ios == 0) read (12, iostat=ios) step, x
    close (12)
    mine = 0
    if (ios == 0 .and. step == 2) then
      do i = 1, n ! bit for bit
        if (transfer(x(i), 0_8) == transfer(value(rank, 2, i), 0_8)) mine = mine + 1
      end do
    end if
    valid = merge(1, 0, mine == n)
    call SCR_COMPLETE_RESTART(valid, ierr)
    if (ierr /= SCR_SUCCESS) call die('restart data')
    call MPI_REDUCE(mine, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,i0,a,i0,a)', 'scrf-free: restarted from free.2, ', &
      total, ' values verified on ', nprocs, ' ranks'

    call checkpoint(4)
    call SCR_DELETE('free.4', ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_DELETE')
    if (rank == 0) print '(a)', 'scrf-free: wrote free.4 and deleted it'
  else
    ! the first run
    if (name /= ' ') call die('NAME without a restart')
    do step = 1, 3
      call SCR_NEED_CHECKPOINT(flag, ierr)
      if (ierr /= SCR_SUCCESS .or. flag /= 1) call die('SCR_NEED_CHECKPOINT')
      call checkpoint(step)
    end do
    if (rank == 0) print '(a)', 'scrf-free: wrote free.1, free.2 and free.3'
  end if

  call SCR_FINALIZE(ierr)
  if (ierr /= SCR_SUCCESS) call die('SCR_FINALIZE')
  if (rank == 0) print '(a)', 'scrf-free: ok'
  call MPI_FINALIZE(ierr)

contains

  ! what rank r writes at step s in place i
  real(kind=8) function value(r, s, i)
    integer, intent(in) :: r, s, i
    value = r * 1000.0d0 + s + i / 4096.0d0
  end function

  ! checkpoint free.<s>: this rank's file with s and its numbers
  subroutine checkpoint(s)
    integer, intent(in) :: s
    character(len=16) :: dset
    write (dset, '(a,i0)') 'free.', s
    call SCR_START_OUTPUT(dset, SCR_FLAG_CHECKPOINT, ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_START_OUTPUT ' // dset)
    write (fname, '(a,a,i0,a)') trim(dset), '/data_', rank, '.bin'
    call SCR_ROUTE_FILE(fname, path, ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_ROUTE_FILE')
    do i = 1, n
      x(i) = value(rank, s, i)
    end do
    open (unit=12, file=path, form='unformatted', access='stream', status='replace', &
          action='write', iostat=ios)
    if (ios == 0) write (12, iostat=ios) s, x
    close (12)
    call SCR_COMPLETE_OUTPUT(merge(1, 0, ios == 0), ierr)
    if (ierr /= SCR_SUCCESS) call die('SCR_COMPLETE_OUTPUT ' // dset)
  end subroutine

  subroutine die(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'scrf-free: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
  end subroutine

end program
