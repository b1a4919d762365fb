# SPDX-License-Identifier: BSD-3-Clause
# app.sh - sourced by test-install.sh and test-deb.sh: build
# examples/cmake-app/counter.c against an installed SCR the two ways an
# application does (CMake's find_package(SCR), pkg-config) and run each
# twice as a one-rank MPI job in the same SCR job: the second run must
# restart from the first one's checkpoint.  Then the same for Fortran
# programs written for SCR v3 (app_fortran_checks).
#
# app_checks WORK CC EXTRA_CFLAGS CMAKEDIR: uses the caller's check(); the
# installed SCR is the one CMAKE_PREFIX_PATH and PKG_CONFIG_PATH lead to (or
# /usr), and find_package(SCR) must find it in CMAKEDIR.
app_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples/cmake-app" && pwd)

# app_run WORK EXE NAME [LIBDIR]: two runs with one job id in WORK/NAME (the
# prefix); LIBDIR for a program without a RUNPATH to an SCR off the system path
app_run() {
	local work=$1 exe=$2 name=$3 job="app$$$3" lib=()
	local pre=$work/$name
	[ -n "${4:-}" ] && lib=(-x LD_LIBRARY_PATH="$4")
	mkdir -p "$pre"
	# Open MPI and PMIx keep allocations until exit (sanitizer builds)
	(cd "$pre" && for i in 1 2; do
		env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			LSAN_OPTIONS="suppressions=$app_src/../../tests/sim/lsan.supp:fast_unwind_on_malloc=0" \
			timeout 60 mpirun -np 1 -x SCR_JOB_ID="$job" -x SCR_PREFIX="$pre" "${lib[@]}" "$exe" || echo "exit status $?"
	done) >"$pre.out" 2>&1
	rm -rf "/dev/shm/$(id -un)/scr.$job"
	grep -q 'counter: rank 0: starting at 0' "$pre.out" &&
		grep -q 'counter: rank 0: restarted from ckpt.3 at 3' "$pre.out" &&
		grep -q 'counter: rank 0: reached 6' "$pre.out" && ! grep -q '^exit status' "$pre.out" ||
		{ sed 's/^/    /' "$pre.out" | tail -15; return 1; }
}

app_checks() {
	local work=$1 cc=$2 extra=$3 cmakedir=$4
	if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
		echo "ok - # SKIP no mpirun/mpicc: the example application is not built"
		return 0
	fi
	mkdir -p "$work"
	check "find_package(SCR): the example configures and builds with CMake" \
		sh -c 'cmake -S "$1" -B "$2/cmake-build" -DCMAKE_C_COMPILER="$3" \
			-DCMAKE_C_FLAGS="$4" -DCMAKE_EXE_LINKER_FLAGS="$4" >"$2/cmake.log" 2>&1 &&
			cmake --build "$2/cmake-build" >>"$2/cmake.log" 2>&1 ||
			{ tail -20 "$2/cmake.log"; exit 1; }' sh "$app_src" "$work" "$cc" "$extra"
	check "find_package(SCR) found it in $cmakedir" \
		sh -c 'grep -qx "SCR_DIR:PATH=$2" "$1/cmake-build/CMakeCache.txt" || { grep "^SCR_DIR" "$1/cmake-build/CMakeCache.txt"; exit 1; }' \
		sh "$work" "$cmakedir"
	check "the CMake-built example checkpoints and restarts (mpirun -np 1, twice)" \
		app_run "$work" "$work/cmake-build/counter" cmake
	check "pkg-config: the same example builds with mpicc \$(pkg-config --cflags --libs scr)" \
		sh -c 'OMPI_CC="$3" MPICH_CC="$3" mpicc $4 "$1/counter.c" -o "$2/counter-pc" $(pkg-config --cflags --libs scr)' \
		sh "$app_src" "$work" "$cc" "$extra"
	check "the pkg-config-built example checkpoints and restarts (mpirun -np 1, twice)" \
		app_run "$work" "$work/counter-pc" pkgconfig "$(pkg-config --variable=libdir scr)"
	# gfortran takes app_xflags when test-install.sh set them
	app_fortran_checks "$work/fortran" "$cc" "${app_xflags-$extra}" "$cmakedir"
}

# app_fortran_checks WORK CC EXTRA CMAKEDIR: programs in SCR v3's
# Fortran style (INCLUDE 'scrf.h', external subroutines; tests/install/
# fortran) built the ways one is: "mpifort app.f -lscrf -lscr", SCR v3's
# documented "-lscrf -Wl,-rpath,<libdir>", pkg-config's scrf.pc,
# find_package(SCR COMPONENTS Fortran); each is run.  And an FTI Fortran
# program (use FTI, tests/sim/heat_fti.f90) built against the module.
# Skipped when SCR was built without Fortran (no scrf.pc).
app_fortran_checks() {
	local work=$1 cc=$2 extra=$3 cmakedir=$4 src libdir incdir fflags
	# EXTRA goes on mpifort's link lines; CMake compiles with it only when
	# it is compiler flags (not a runtime library to link)
	case $extra in -fsanitize*) fflags=$extra ;; *) fflags="" ;; esac
	src=$(cd "$app_src/../../tests/install/fortran" && pwd)
	if ! pkg-config --exists scrf || ! command -v mpifort >/dev/null; then
		echo "ok - # SKIP no scrf.pc or no mpifort: SCR's Fortran interface is not checked"
		return 0
	fi
	libdir=$(pkg-config --variable=libdir scrf)
	incdir=$(pkg-config --variable=includedir scrf)
	mkdir -p "$work"
	check "scrf.h installed beside scr.mod" test -f "$incdir/scrf.h" -a -f "$incdir/scr.mod"
	check "Fortran, fixed form: mpifort version.f -I<includedir> -L<libdir> -lscrf -lscr, and it runs" \
		sh -c 'mpifort $3 "$1/version.f" -o "$2/version-f" -I"$4" -L"$5" -lscrf -lscr &&
			LD_LIBRARY_PATH="$5" "$2/version-f" | grep -q "v3\.1\.0"' \
		sh "$src" "$work" "$extra" "$incdir" "$libdir"
	check "Fortran, SCR v3's documented line: mpifort version.F90 -I<includedir> -L<libdir> -lscrf -Wl,-rpath,<libdir> (no -lscr), and it runs without LD_LIBRARY_PATH" \
		sh -c 'mpifort $3 "$1/version.F90" -o "$2/version-rpath" -I"$4" -L"$5" -lscrf -Wl,-rpath,"$5" &&
			"$2/version-rpath" | grep -q "v3\.1\.0"' \
		sh "$src" "$work" "$extra" "$incdir" "$libdir"
	check "Fortran, free form: mpifort version.F90 \$(pkg-config --cflags --libs scrf), and it runs" \
		sh -c 'mpifort $3 "$1/version.F90" -o "$2/version-pc" $(pkg-config --cflags --libs scrf) &&
			LD_LIBRARY_PATH="$4" "$2/version-pc" | grep -q "v3\.1\.0"' \
		sh "$src" "$work" "$extra" "$libdir"
	check "FTI's module fti.mod beside scr.mod: an FTI Fortran program builds unchanged, mpifort heat_fti.f90 \$(pkg-config --cflags --libs scrf)" \
		sh -c 'test -f "$4/fti.mod" && mpifort $3 "$1" -o "$2/heat-fti-f" $(pkg-config --cflags --libs scrf)' \
		sh "$src/../../sim/heat_fti.f90" "$work" "$extra" "$incdir"
	check "find_package(SCR COMPONENTS Fortran): SCR::scrf builds both forms with CMake, and they run" \
		sh -c 'cmake -S "$1" -B "$2/cmake-build" -DCMAKE_C_COMPILER="$3" \
			-DCMAKE_Fortran_FLAGS="$6" -DCMAKE_EXE_LINKER_FLAGS="$4" \
			>"$2/cmake.log" 2>&1 && cmake --build "$2/cmake-build" >>"$2/cmake.log" 2>&1 &&
			grep -qx "SCR_DIR:PATH=$5" "$2/cmake-build/CMakeCache.txt" &&
			"$2/cmake-build/version_free" | grep -q "v3\.1\.0" &&
			"$2/cmake-build/version_fixed" | grep -q "v3\.1\.0" ||
			{ tail -20 "$2/cmake.log"; grep "^SCR_DIR" "$2/cmake-build/CMakeCache.txt"; exit 1; }' \
		sh "$src" "$work" "$cc" "$extra" "$cmakedir" "$fflags"
}
