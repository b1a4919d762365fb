! SPDX-License-Identifier: BSD-3-Clause
! heat_fti.f90 - an FTI Fortran program written as FTI's documentation
! writes one (use FTI: FTI_Init, FTI_Protect of POINTER variables,
! FTI_Status, FTI_Recover, FTI_Checkpoint, FTI_Finalize), built unchanged
! against libscrf.  A heat plate split in bands of rows over the ranks;
! each step a Jacobi sweep with the neighbours' edge rows exchanged.
! Rank 0 prints "step N sum S" (S the plate's total, summed in rank order,
! printed to the last bit) for every step, so a run that recovered can be
! compared line by line with one that never stopped.
!
! Usage: heat_fti_f CONFIG STEPS LEVEL EVERY [DIE_AT]
!   a checkpoint every EVERY steps at FTI level LEVEL (EVERY 0: none);
!   after step DIE_AT every process kills itself (SIGKILL): a crash.
! Protected: the step (integer scalar), the plate (real(8), rank 2, its
! rows numbered from 0), a record of the steps (integer(8), rank 1) and a
! real(4) array given as a C pointer with FTI_REAL4.  A strided section
! is offered too, and must be refused.
program heat_fti_f
  use, intrinsic :: iso_c_binding
  use mpi
  use FTI
  implicit none
  integer, parameter :: nx = 64, rows = 16
  integer, pointer :: step
  real(8), pointer :: g(:, :), strided(:, :)
  integer(8), pointer :: record(:)
  real(4), target :: marks(8)
  real(8), allocatable :: h(:, :)
  character(len=256) :: config, arg
  integer :: nsteps, level, every, die_at, comm, rank, nprocs, err, st, bytes, k

  interface
    integer(c_int) function c_raise(sig) bind(C, name="raise")
      import :: c_int
      integer(c_int), value :: sig
    end function
  end interface

  call get_command_argument(1, config)
  nsteps = int_arg(2)
  level = int_arg(3)
  every = int_arg(4)
  die_at = -1
  if (command_argument_count() >= 5) die_at = int_arg(5)

  call MPI_Init(err)
  comm = MPI_COMM_WORLD
  call FTI_Init(config, comm, err)
  if (err /= FTI_SCES) then
    print '(a)', 'heat_fti_f: FTI_Init failed'
    call MPI_Abort(MPI_COMM_WORLD, 1, err)
  end if
  call MPI_Comm_rank(comm, rank, err)
  call MPI_Comm_size(comm, nprocs, err)

  allocate(step, g(nx, 0:rows + 1), record(4))
  allocate(h(nx, 0:rows + 1))
  step = 0
  record = 0
  marks = 0
  g = 0
  if (rank == 0) g(:, 0) = 100

  call FTI_Protect(0, step, err)
  call must(err, 'FTI_Protect of the step')
  call FTI_Protect(1, g, err)
  call must(err, 'FTI_Protect of the plate')
  call FTI_SetAttribute(1, 'temperature_field', FTI_ATTRIBUTE_NAME, err)
  call must(err, 'FTI_SetAttribute of the plate''s name')
  call FTI_SetAttribute(1, int(shape(g), 8), FTI_ATTRIBUTE_DIM, err)
  call must(err, 'FTI_SetAttribute of the plate''s dimensions')
  call FTI_SetAttribute(1, [2, -1], FTI_ATTRIBUTE_DIM, err)
  if (rank == 0 .and. err == FTI_NSCS) print '(a)', 'attributes set, a negative dimension refused'
  call FTI_Protect(2, record, err)
  call must(err, 'FTI_Protect of the record')
  call FTI_Protect(3, c_loc(marks), size(marks), FTI_REAL4, err)
  call must(err, 'FTI_Protect of the marks')
  strided => g(1:nx:2, 1:rows)
  call FTI_Protect(9, strided, err)
  if (rank == 0 .and. err == FTI_NSCS) print '(a)', 'strided section refused'

  call FTI_Status(st)
  if (st /= 0) then
    call FTI_GetStoredSize(1, bytes)
    call FTI_Recover(err)
    call must(err, 'FTI_Recover')
    if (record(1) /= step .or. record(4) /= 4 * int(step, 8) .or. &
        nint(marks(1)) /= step) then
      print '(a, i0, a)', 'rank ', rank, ': recovered variables disagree'
      call MPI_Abort(MPI_COMM_WORLD, 1, err)
    end if
    if (rank == 0) print '(a, i0, a, i0, a)', 'recovered at step ', step, &
      ' (plate: ', bytes, ' bytes per rank)'
  end if

  do while (step < nsteps)
    call sweep()
    step = step + 1
    record = [(int(step, 8) * k, k = 1, 4)]
    marks = real(step, 4)
    call print_sum()
    if (every > 0) then
      if (mod(step, every) == 0) then
        ! FTI_DONE (1) when it checkpointed; FTI's module names only
        ! FTI_SCES and FTI_NSCS
        call FTI_Checkpoint(step / every, level, err)
        if (err == FTI_NSCS) call must(err, 'FTI_Checkpoint')
        if (rank == 0) print '(a, i0, a, i0)', 'checkpoint ', step / every, &
          ' at step ', step
      end if
    end if
    if (step == die_at) then
      ! rank 0's lines out first: the crash must not eat the last step's
      flush(6)
      call MPI_Barrier(comm, err)
      st = c_raise(9_c_int)
    end if
  end do

  call FTI_Finalize(err)
  deallocate(step, g, record, h)
  call MPI_Finalize(err)

contains

  integer function int_arg(i)
    integer, intent(in) :: i
    call get_command_argument(i, arg)
    read (arg, *) int_arg
  end function

  subroutine must(rc, what)
    integer, intent(in) :: rc
    character(len=*), intent(in) :: what
    integer :: e
    if (rc == FTI_SCES) return
    print '(a, i0, 3a, i0)', 'rank ', rank, ': ', what, ' failed: ', rc
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine

  ! one Jacobi sweep: the bands exchange their edge rows first; the top row
  ! of rank 0 is the heat source, the plate's other edges stay cold
  subroutine sweep()
    integer :: up, down, i, j, e
    up = rank - 1
    down = rank + 1
    if (up < 0) up = MPI_PROC_NULL
    if (down >= nprocs) down = MPI_PROC_NULL
    call MPI_Sendrecv(g(:, 1), nx, MPI_DOUBLE_PRECISION, up, 1, &
                      g(:, rows + 1), nx, MPI_DOUBLE_PRECISION, down, 1, comm, &
                      MPI_STATUS_IGNORE, e)
    call MPI_Sendrecv(g(:, rows), nx, MPI_DOUBLE_PRECISION, down, 2, &
                      g(:, 0), nx, MPI_DOUBLE_PRECISION, up, 2, comm, &
                      MPI_STATUS_IGNORE, e)
    h = g
    do j = 1, rows
      do i = 2, nx - 1
        h(i, j) = 0.25d0 * (g(i - 1, j) + g(i + 1, j) + g(i, j - 1) + g(i, j + 1))
      end do
    end do
    if (down == MPI_PROC_NULL) h(:, rows) = 0
    g(:, 1:rows) = h(:, 1:rows)
  end subroutine

  ! the plate's total, summed in rank order so every run adds alike
  subroutine print_sum()
    real(8) :: mine, all(nprocs), total
    integer :: e, r
    mine = sum(g(:, 1:rows))
    call MPI_Gather(mine, 1, MPI_DOUBLE_PRECISION, all, 1, MPI_DOUBLE_PRECISION, 0, comm, e)
    if (rank /= 0) return
    total = 0
    do r = 1, nprocs
      total = total + all(r)
    end do
    print '(a, i0, a, es25.17e3)', 'step ', step, ' sum ', total
  end subroutine

end program heat_fti_f
