! SPDX-License-Identifier: BSD-3-Clause
! scr.f90 - the SCR interface for Fortran (ISO_C_BINDING).
!
! Same calls as scr.h, in the style of the SCR v3 Fortran interface: each
! subroutine ends with an IERROR argument set to SCR_SUCCESS or SCR_FAILURE.
! Strings are Fortran character variables; names are trimmed before use.
! The memory-protect API (scr_mem.h) takes a buffer as TYPE(C_PTR), e.g.
!   call SCR_PROTECT(1, c_loc(u), size(u, kind=8), 8_8, ierr)
! for a TARGET array u of 8-byte reals.
module scr
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_str, f_str

  integer, parameter :: SCR_SUCCESS = 0
  integer, parameter :: SCR_FAILURE = 1
  integer, parameter :: SCR_MAX_FILENAME = 1024
  integer, parameter :: SCR_FLAG_NONE = 0
  integer, parameter :: SCR_FLAG_CHECKPOINT = 1
  integer, parameter :: SCR_FLAG_OUTPUT = 2

  interface
    integer(c_int) function c_scr_init() bind(C, name="SCR_Init")
      import :: c_int
    end function
    integer(c_int) function c_scr_init_comm(comm) bind(C, name="scr_init_comm_fint")
      import :: c_int
      integer(c_int), value :: comm
    end function
    integer(c_int) function c_scr_finalize() bind(C, name="SCR_Finalize")
      import :: c_int
    end function
    integer(c_int) function c_scr_route_file(name, file) bind(C, name="SCR_Route_file")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      character(kind=c_char), dimension(*), intent(out) :: file
    end function
    integer(c_int) function c_scr_need_checkpoint(flag) bind(C, name="SCR_Need_checkpoint")
      import :: c_int
      integer(c_int), intent(out) :: flag
    end function
    integer(c_int) function c_scr_start_output(name, flags) bind(C, name="SCR_Start_output")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: flags
    end function
    integer(c_int) function c_scr_complete_output(valid) bind(C, name="SCR_Complete_output")
      import :: c_int
      integer(c_int), value :: valid
    end function
    integer(c_int) function c_scr_start_checkpoint() bind(C, name="SCR_Start_checkpoint")
      import :: c_int
    end function
    integer(c_int) function c_scr_complete_checkpoint(valid) &
        bind(C, name="SCR_Complete_checkpoint")
      import :: c_int
      integer(c_int), value :: valid
    end function
    integer(c_int) function c_scr_have_restart(flag, name) bind(C, name="SCR_Have_restart")
      import :: c_int, c_char
      integer(c_int), intent(out) :: flag
      character(kind=c_char), dimension(*), intent(out) :: name
    end function
    integer(c_int) function c_scr_start_restart(name) bind(C, name="SCR_Start_restart")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(out) :: name
    end function
    integer(c_int) function c_scr_complete_restart(valid) bind(C, name="SCR_Complete_restart")
      import :: c_int
      integer(c_int), value :: valid
    end function
    integer(c_int) function c_scr_current(name) bind(C, name="SCR_Current")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_scr_drop(name) bind(C, name="SCR_Drop")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_scr_delete(name) bind(C, name="SCR_Delete")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_scr_should_exit(flag) bind(C, name="SCR_Should_exit")
      import :: c_int
      integer(c_int), intent(out) :: flag
    end function
    type(c_ptr) function c_scr_config(config) bind(C, name="SCR_Config")
      import :: c_ptr, c_char
      character(kind=c_char), dimension(*), intent(in) :: config
    end function
    type(c_ptr) function c_scr_get_version() bind(C, name="SCR_Get_version")
      import :: c_ptr
    end function
    integer(c_int) function c_scr_protect(id, ptr, count, elem) bind(C, name="SCR_Protect")
      import :: c_int, c_ptr, c_int64_t, c_size_t
      integer(c_int), value :: id
      type(c_ptr), value :: ptr
      integer(c_int64_t), value :: count
      integer(c_size_t), value :: elem
    end function
    integer(c_int) function c_scr_unprotect(id) bind(C, name="SCR_Unprotect")
      import :: c_int
      integer(c_int), value :: id
    end function
    integer(c_int) function c_scr_checkpoint(name) bind(C, name="SCR_Checkpoint")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_scr_checkpoint_begin(name) bind(C, name="SCR_Checkpoint_begin")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_scr_checkpoint_add(id) bind(C, name="SCR_Checkpoint_add")
      import :: c_int
      integer(c_int), value :: id
    end function
    integer(c_int) function c_scr_checkpoint_end() bind(C, name="SCR_Checkpoint_end")
      import :: c_int
    end function
    integer(c_int) function c_scr_recover() bind(C, name="SCR_Recover")
      import :: c_int
    end function
    integer(c_int) function c_scr_recover_var(id) bind(C, name="SCR_Recover_var")
      import :: c_int
      integer(c_int), value :: id
    end function
    integer(c_int) function c_scr_stored_size(id, bytes) bind(C, name="SCR_Stored_size")
      import :: c_int, c_int64_t
      integer(c_int), value :: id
      integer(c_int64_t), intent(out) :: bytes
    end function
    subroutine c_free(p) bind(C, name="free")
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine
    integer(c_size_t) function c_strlen(p) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: p
    end function
  end interface

contains

  ! a trimmed Fortran string as a NUL-terminated C string
  function c_str(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char), dimension(len_trim(s) + 1) :: c
    integer :: i
    do i = 1, len_trim(s)
      c(i) = s(i:i)
    end do
    c(len_trim(s) + 1) = c_null_char
  end function

  ! a C string buffer into a Fortran string (blank padded)
  subroutine f_str(c, s)
    character(kind=c_char), dimension(*), intent(in) :: c
    character(len=*), intent(out) :: s
    integer :: i
    s = ' '
    do i = 1, len(s)
      if (c(i) == c_null_char) exit
      s(i:i) = c(i)
    end do
  end subroutine

  ! a C string pointer into a Fortran string
  subroutine f_ptr_str(p, s)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(out) :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    s = ' '
    if (.not. c_associated(p)) return
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n + 1])
    call f_str(chars, s)
  end subroutine

  subroutine SCR_INIT(ierror)
    integer, intent(out) :: ierror
    ierror = c_scr_init()
  end subroutine

  ! SCR on the processes of comm only: comm is a Fortran handle (an
  ! INTEGER of "use mpi" or mpif.h, or the MPI_VAL of a TYPE(MPI_Comm))
  subroutine SCR_INIT_COMM(comm, ierror)
    integer, intent(in) :: comm
    integer, intent(out) :: ierror
    ierror = c_scr_init_comm(int(comm, c_int))
  end subroutine

  subroutine SCR_FINALIZE(ierror)
    integer, intent(out) :: ierror
    ierror = c_scr_finalize()
  end subroutine

  subroutine SCR_ROUTE_FILE(name, file, ierror)
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: file
    integer, intent(out) :: ierror
    character(kind=c_char), dimension(SCR_MAX_FILENAME) :: buf
    buf = c_null_char
    ierror = c_scr_route_file(c_str(name), buf)
    call f_str(buf, file)
    if (ierror == SCR_SUCCESS .and. len_trim(file) == len(file)) ierror = SCR_FAILURE
  end subroutine

  subroutine SCR_NEED_CHECKPOINT(flag, ierror)
    integer, intent(out) :: flag, ierror
    integer(c_int) :: f
    ierror = c_scr_need_checkpoint(f)
    flag = f
  end subroutine

  subroutine SCR_START_OUTPUT(name, flags, ierror)
    character(len=*), intent(in) :: name
    integer, intent(in) :: flags
    integer, intent(out) :: ierror
    ierror = c_scr_start_output(c_str(name), int(flags, c_int))
  end subroutine

  subroutine SCR_COMPLETE_OUTPUT(valid, ierror)
    integer, intent(in) :: valid
    integer, intent(out) :: ierror
    ierror = c_scr_complete_output(int(valid, c_int))
  end subroutine

  subroutine SCR_START_CHECKPOINT(ierror)
    integer, intent(out) :: ierror
    ierror = c_scr_start_checkpoint()
  end subroutine

  subroutine SCR_COMPLETE_CHECKPOINT(valid, ierror)
    integer, intent(in) :: valid
    integer, intent(out) :: ierror
    ierror = c_scr_complete_checkpoint(int(valid, c_int))
  end subroutine

  subroutine SCR_HAVE_RESTART(flag, name, ierror)
    integer, intent(out) :: flag, ierror
    character(len=*), intent(out) :: name
    character(kind=c_char), dimension(SCR_MAX_FILENAME) :: buf
    integer(c_int) :: f
    buf = c_null_char
    ierror = c_scr_have_restart(f, buf)
    flag = f
    call f_str(buf, name)
  end subroutine

  subroutine SCR_START_RESTART(name, ierror)
    character(len=*), intent(out) :: name
    integer, intent(out) :: ierror
    character(kind=c_char), dimension(SCR_MAX_FILENAME) :: buf
    buf = c_null_char
    ierror = c_scr_start_restart(buf)
    call f_str(buf, name)
  end subroutine

  subroutine SCR_COMPLETE_RESTART(valid, ierror)
    integer, intent(in) :: valid
    integer, intent(out) :: ierror
    ierror = c_scr_complete_restart(int(valid, c_int))
  end subroutine

  subroutine SCR_CURRENT(name, ierror)
    character(len=*), intent(in) :: name
    integer, intent(out) :: ierror
    ierror = c_scr_current(c_str(name))
  end subroutine

  subroutine SCR_DROP(name, ierror)
    character(len=*), intent(in) :: name
    integer, intent(out) :: ierror
    ierror = c_scr_drop(c_str(name))
  end subroutine

  subroutine SCR_DELETE(name, ierror)
    character(len=*), intent(in) :: name
    integer, intent(out) :: ierror
    ierror = c_scr_delete(c_str(name))
  end subroutine

  subroutine SCR_SHOULD_EXIT(flag, ierror)
    integer, intent(out) :: flag, ierror
    integer(c_int) :: f
    ierror = c_scr_should_exit(f)
    flag = f
  end subroutine

  ! set ("KEY=VALUE"), unset ("KEY=") or query ("KEY": the value in VAL)
  subroutine SCR_CONFIG(config, val, ierror)
    character(len=*), intent(in) :: config
    character(len=*), intent(out) :: val
    integer, intent(out) :: ierror
    type(c_ptr) :: p
    p = c_scr_config(c_str(config))
    call f_ptr_str(p, val)
    if (c_associated(p)) call c_free(p)
    ierror = SCR_SUCCESS
  end subroutine

  subroutine SCR_GET_VERSION(version, ierror)
    character(len=*), intent(out) :: version
    integer, intent(out) :: ierror
    call f_ptr_str(c_scr_get_version(), version)
    ierror = SCR_SUCCESS
  end subroutine

  ! the memory-protect API (scr_mem.h)
  subroutine SCR_PROTECT(id, ptr, count, elem_size, ierror)
    integer, intent(in) :: id
    type(c_ptr), intent(in) :: ptr
    integer(c_int64_t), intent(in) :: count, elem_size
    integer, intent(out) :: ierror
    ierror = c_scr_protect(int(id, c_int), ptr, count, int(elem_size, c_size_t))
  end subroutine

  subroutine SCR_UNPROTECT(id, ierror)
    integer, intent(in) :: id
    integer, intent(out) :: ierror
    ierror = c_scr_unprotect(int(id, c_int))
  end subroutine

  subroutine SCR_CHECKPOINT(name, ierror)
    character(len=*), intent(in) :: name
    integer, intent(out) :: ierror
    ierror = c_scr_checkpoint(c_str(name))
  end subroutine

  subroutine SCR_CHECKPOINT_BEGIN(name, ierror)
    character(len=*), intent(in) :: name
    integer, intent(out) :: ierror
    ierror = c_scr_checkpoint_begin(c_str(name))
  end subroutine

  subroutine SCR_CHECKPOINT_ADD(id, ierror)
    integer, intent(in) :: id
    integer, intent(out) :: ierror
    ierror = c_scr_checkpoint_add(int(id, c_int))
  end subroutine

  subroutine SCR_CHECKPOINT_END(ierror)
    integer, intent(out) :: ierror
    ierror = c_scr_checkpoint_end()
  end subroutine

  subroutine SCR_RECOVER(ierror)
    integer, intent(out) :: ierror
    ierror = c_scr_recover()
  end subroutine

  subroutine SCR_RECOVER_VAR(id, ierror)
    integer, intent(in) :: id
    integer, intent(out) :: ierror
    ierror = c_scr_recover_var(int(id, c_int))
  end subroutine

  subroutine SCR_STORED_SIZE(id, bytes, ierror)
    integer, intent(in) :: id
    integer(c_int64_t), intent(out) :: bytes
    integer, intent(out) :: ierror
    ierror = c_scr_stored_size(int(id, c_int), bytes)
  end subroutine

end module scr
