# app.sh - sourced by test-install.sh and test-deb.sh: build
# examples/cmake-app/counter.c against an installed SCR the two ways an
# application does (CMake's find_package(SCR), pkg-config) and run each
# twice as a one-rank MPI job in the same SCR job: the second run must
# restart from the first one's checkpoint.
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
}
