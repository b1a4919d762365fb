#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# fti_f90.sh OUT: write FTI 1.6's Fortran module (`use FTI`) for libscrf.
#
# FTI's module names one type handle per intrinsic type and kind the
# compiler has (FTI_REAL8, FTI_INTEGER4, ...) and gives FTI_Protect and
# FTI_Realloc one specific procedure per type, kind and rank 0-7: some 300
# procedures that differ only in a declaration, so they are written here
# rather than by hand.  The kinds are gfortran's (the Fortran compiler the
# build supports).  Everything else binds to fti.h's C functions; FTI_Init
# goes through scr_fti_init_f (fti_fortran.c), which turns the Fortran
# communicator handle into an MPI_Comm and back.
set -eu
out=${1:?usage: fti_f90.sh OUT}

# type descriptor, declaration, bytes per element
types="CHARACTER1:character(kind=1):1
CHARACTER4:character(kind=4):4
COMPLEX4:complex(kind=4):8
COMPLEX8:complex(kind=8):16
COMPLEX16:complex(kind=16):32
INTEGER1:integer(kind=1):1
INTEGER2:integer(kind=2):2
INTEGER4:integer(kind=4):4
INTEGER8:integer(kind=8):8
INTEGER16:integer(kind=16):16
LOGICAL1:logical(kind=1):1
LOGICAL2:logical(kind=2):2
LOGICAL4:logical(kind=4):4
LOGICAL8:logical(kind=8):8
LOGICAL16:logical(kind=16):16
REAL4:real(kind=4):4
REAL8:real(kind=8):8
REAL16:real(kind=16):16"
maxrank=7

# shape R: "(:,:,...)" with R colons, nothing for rank 0
shape() {
	[ "$1" -gt 0 ] || return 0
	s=":" i=1
	while [ $i -lt "$1" ]; do s="$s,:"; i=$((i + 1)); done
	printf '(%s)' "$s"
}
# first R: the first element's subscripts, "(lb(1), lb(2), ...)", lb
# holding lbound(data)
first() {
	s="lb(1)" i=2
	while [ $i -le "$1" ]; do s="$s, lb($i)"; i=$((i + 1)); done
	printf '(%s)' "$s"
}
# ones R: the shape a reallocated array gets, "[n, 1, 1]"
ones() {
	s="n" i=2
	while [ $i -le "$1" ]; do s="$s, 1_c_int64_t"; i=$((i + 1)); done
	printf '[%s]' "$s"
}
each_type() { # each_type FUNC: FUNC NAME DECL BYTES for every type
	echo "$types" | while IFS=: read -r name decl bytes; do "$1" "$name" "$decl" "$bytes"; done
}
each_rank() { # each_rank FUNC: FUNC NAME DECL BYTES RANK for every type and rank
	echo "$types" | while IFS=: read -r name decl bytes; do
		r=0
		while [ $r -le $maxrank ]; do "$1" "$name" "$decl" "$bytes" $r; r=$((r + 1)); done
	done
}

handle() { echo "  type(FTI_type), public :: FTI_$1"; }
init_type() {
	echo "    call FTI_InitType(FTI_$1, $3, err)"
	echo "    if (err /= FTI_SCES) return"
}
specific() { echo "    module procedure FTI_$5_$1_$4"; }
protect_names() { specific "$@" Protect; }
realloc_names() { specific "$@" Realloc; }

protect() { # one FTI_Protect specific
	name=$1 decl=$2 rank=$4
	echo
	echo "  subroutine FTI_Protect_${name}_$rank(id_F, data, err)"
	echo "    integer, intent(in) :: id_F"
	echo "    $decl, pointer :: data$(shape "$rank")"
	echo "    integer, intent(out) :: err"
	if [ "$rank" = 0 ]; then
		echo "    call FTI_Protect_Ptr(id_F, c_loc(data), 1, FTI_$name, err)"
	else
		echo "    integer :: lb($rank)"
		echo "    if (.not. is_contiguous(data)) then"
		echo "      call not_contiguous(id_F, err)"
		echo "      return"
		echo "    end if"
		echo "    lb = lbound(data)"
		echo "    call FTI_Protect_Ptr(id_F, c_loc(data$(first "$rank")), size(data), FTI_$name, err)"
	fi
	echo "  end subroutine"
}

realloc() { # one FTI_Realloc specific
	name=$1 decl=$2 bytes=$3 rank=$4
	echo
	echo "  subroutine FTI_Realloc_${name}_$rank(id_F, data, ierr)"
	echo "    integer, intent(in) :: id_F"
	echo "    $decl, pointer :: data$(shape "$rank")"
	echo "    integer, intent(out) :: ierr"
	echo "    type(c_ptr) :: p"
	if [ "$rank" = 0 ]; then
		echo "    p = c_realloc(int(id_F, c_int), c_loc(data))"
	else
		echo "    integer(c_int64_t) :: n"
		echo "    integer :: lb($rank)"
		echo "    lb = lbound(data)"
		echo "    n = c_stored_size(int(id_F, c_int)) / $bytes"
		echo "    p = c_realloc(int(id_F, c_int), c_loc(data$(first "$rank")))"
	fi
	echo "    ierr = FTI_SCES"
	echo "    if (.not. c_associated(p)) then"
	echo "      ierr = FTI_NSCS"
	echo "      data => null()"
	echo "      return"
	echo "    end if"
	if [ "$rank" = 0 ]; then
		echo "    call c_f_pointer(p, data)"
	else
		echo "    call c_f_pointer(p, data, $(ones "$rank"))"
	fi
	echo "  end subroutine"
}

{
	cat <<'EOF'
! SPDX-License-Identifier: BSD-3-Clause
! fti.f90 - written by lib/fti/fti_f90.sh; do not edit.
!
! FTI 1.6's Fortran module on libscr: the same public names, subroutines
! and arguments as FTI's `use FTI`, so an FTI Fortran program builds
! unchanged against -lscrf.  FTI_Protect and FTI_Realloc take a POINTER to
! a scalar or an array of rank 1-7 of any intrinsic type and kind, or
! (FTI_Protect) a C pointer, a count and an FTI_type.  An array must be
! contiguous: FTI would protect the bytes from its first element on,
! whatever they hold; here FTI_Protect refuses it with FTI_NSCS and a line.
module FTI
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  type, public :: FTI_type
    integer(c_int), private :: id = -1
  end type FTI_type

  integer, parameter, public :: FTI_SCES = 0
  integer, parameter, public :: FTI_NSCS = -1
  integer, parameter, public :: FTI_ATTRIBUTE_NAME = 1
  integer, parameter, public :: FTI_ATTRIBUTE_DIM = 2

EOF
	each_type handle
	cat <<'EOF'

  public :: FTI_Init, FTI_Status, FTI_InitType, FTI_Protect, FTI_Checkpoint, &
    FTI_Recover, FTI_Snapshot, FTI_Finalize, FTI_GetStoredSize, FTI_Realloc, &
    FTI_SetAttribute

  interface
    integer(c_int) function c_init(file, comm) bind(C, name="scr_fti_init_f")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: file
      integer(c_int), intent(inout) :: comm
    end function
    integer(c_int) function c_status() bind(C, name="FTI_Status")
      import :: c_int
    end function
    integer(c_int) function c_init_type(id, size) bind(C, name="FTI_InitType")
      import :: c_int
      integer(c_int), intent(out) :: id
      integer(c_int), value :: size
    end function
    integer(c_int) function c_protect(id, ptr, count, tid) bind(C, name="FTI_Protect")
      import :: c_int, c_ptr, c_int64_t
      integer(c_int), value :: id
      type(c_ptr), value :: ptr
      integer(c_int64_t), value :: count
      integer(c_int), value :: tid
    end function
    integer(c_int64_t) function c_stored_size(id) bind(C, name="FTI_GetStoredSize")
      import :: c_int, c_int64_t
      integer(c_int), value :: id
    end function
    type(c_ptr) function c_realloc(id, ptr) bind(C, name="FTI_Realloc")
      import :: c_int, c_ptr
      integer(c_int), value :: id
      type(c_ptr), value :: ptr
    end function
    integer(c_int) function c_checkpoint(id, level) bind(C, name="FTI_Checkpoint")
      import :: c_int
      integer(c_int), value :: id, level
    end function
    integer(c_int) function c_recover() bind(C, name="FTI_Recover")
      import :: c_int
    end function
    integer(c_int) function c_snapshot() bind(C, name="FTI_Snapshot")
      import :: c_int
    end function
    integer(c_int) function c_finalize() bind(C, name="FTI_Finalize")
      import :: c_int
    end function
    integer(c_int) function c_attr_name(id, name, flag) bind(C, name="scr_fti_attr_name_f")
      import :: c_int, c_char
      integer(c_int), value :: id, flag
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function c_attr_dim(id, ndims, dims, flag) &
        bind(C, name="scr_fti_attr_dim_f")
      import :: c_int, c_int64_t
      integer(c_int), value :: id, ndims, flag
      integer(c_int64_t), dimension(*), intent(in) :: dims
    end function
  end interface

  ! a variable's name or its dimensions, as FTI's module takes them
  interface FTI_SetAttribute
    module procedure FTI_SetAttribute_string, FTI_SetAttribute_long_array, &
      FTI_SetAttribute_int_array
  end interface FTI_SetAttribute

  interface FTI_Protect
    module procedure FTI_Protect_Ptr
EOF
	each_rank protect_names
	cat <<'EOF'
  end interface FTI_Protect

  interface FTI_Realloc
    module procedure FTI_Realloc_Ptr
EOF
	each_rank realloc_names
	cat <<'EOF'
  end interface FTI_Realloc

contains

  ! FTI_Init also makes the type handles, as FTI's does; GLOBAL_COMM comes
  ! back as FTI_COMM_WORLD
  subroutine FTI_Init(config_file, global_comm, err)
    character(len=*), intent(in) :: config_file
    integer, intent(inout) :: global_comm
    integer, intent(out) :: err
    integer(c_int) :: comm
    comm = int(global_comm, c_int)
    err = int(c_init(trim(config_file) // c_null_char, comm))
    global_comm = int(comm)
    if (err /= FTI_SCES) return
EOF
	each_type init_type
	cat <<'EOF'
  end subroutine

  subroutine FTI_Status(status)
    integer, intent(out) :: status
    status = int(c_status())
  end subroutine

  subroutine FTI_InitType(type_F, size_F, err)
    type(FTI_type), intent(out) :: type_F
    integer, intent(in) :: size_F
    integer, intent(out) :: err
    err = int(c_init_type(type_F%id, int(size_F, c_int)))
  end subroutine

  ! the bytes the newest checkpoint holds for variable ID_F (FTI's kind)
  subroutine FTI_GetStoredSize(id_F, size)
    integer, intent(in) :: id_F
    integer(4) :: size
    size = int(c_stored_size(int(id_F, c_int)), 4)
  end subroutine

  subroutine FTI_Protect_Ptr(id_F, ptr, count_F, type_F, err)
    integer, intent(in) :: id_F
    type(c_ptr), value :: ptr
    integer, intent(in) :: count_F
    type(FTI_type), intent(in) :: type_F
    integer, intent(out) :: err
    err = int(c_protect(int(id_F, c_int), ptr, int(count_F, c_int64_t), type_F%id))
  end subroutine

  subroutine not_contiguous(id_F, err)
    integer, intent(in) :: id_F
    integer, intent(out) :: err
    write (error_unit, '(a, i0, a)') 'FTI_Protect: variable ', id_F, &
      ' is not contiguous in memory: protect a contiguous array (or a copy)'
    err = FTI_NSCS
  end subroutine

  subroutine FTI_Realloc_Ptr(id_F, ptr, ierr)
    integer, intent(in) :: id_F
    type(c_ptr) :: ptr
    integer, intent(out) :: ierr
    ptr = c_realloc(int(id_F, c_int), ptr)
    ierr = FTI_SCES
    if (.not. c_associated(ptr)) ierr = FTI_NSCS
  end subroutine

  subroutine FTI_Checkpoint(id_F, level, err)
    integer, intent(in) :: id_F, level
    integer, intent(out) :: err
    err = int(c_checkpoint(int(id_F, c_int), int(level, c_int)))
  end subroutine

  subroutine FTI_Recover(err)
    integer, intent(out) :: err
    err = int(c_recover())
  end subroutine

  subroutine FTI_Snapshot(err)
    integer, intent(out) :: err
    err = int(c_snapshot())
  end subroutine

  subroutine FTI_Finalize(err)
    integer, intent(out) :: err
    err = int(c_finalize())
  end subroutine

  subroutine FTI_SetAttribute_string(id_F, attribute, flag, err)
    integer, intent(in) :: id_F, flag
    character(len=*), intent(in) :: attribute
    integer, intent(out) :: err
    err = int(c_attr_name(int(id_F, c_int), trim(attribute) // c_null_char, int(flag, c_int)))
  end subroutine

  subroutine FTI_SetAttribute_long_array(id_F, attribute, flag, err)
    integer, intent(in) :: id_F, flag
    integer(c_int64_t), dimension(:), intent(in) :: attribute
    integer, intent(out) :: err
    integer(c_int64_t) :: dims(max(size(attribute), 1))
    dims = 0
    dims(1:size(attribute)) = attribute
    err = int(c_attr_dim(int(id_F, c_int), int(size(attribute), c_int), dims, &
      int(flag, c_int)))
  end subroutine

  subroutine FTI_SetAttribute_int_array(id_F, attribute, flag, err)
    integer, intent(in) :: id_F, flag
    integer, dimension(:), intent(in) :: attribute
    integer, intent(out) :: err
    call FTI_SetAttribute_long_array(id_F, int(attribute, c_int64_t), flag, err)
  end subroutine
EOF
	each_rank protect
	each_rank realloc
	echo
	echo "end module FTI"
} >"$out.tmp"
mv "$out.tmp" "$out"
