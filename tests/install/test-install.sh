#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-install.sh BUILD_DIR: install into a scratch prefix and build
# applications against it with pkg-config and with CMake's find_package(SCR),
# as a user would, and run the example as a one-rank MPI job (app.sh).
# Usage: test-install.sh BUILD_DIR [CC [EXTRA_CFLAGS [XFLAGS]]]
# XFLAGS: what g++ and gfortran need to use a sanitized library (by default
# EXTRA_CFLAGS; for a clang-sanitized one, clang's runtime on the link line)
set -u
. "$(dirname "$0")/app.sh"
build=$1
cc=${2:-cc}
extra=${3:-}
app_xflags=${4-$extra}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
pass=0 fail=0
check() {
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
check "cmake --install" sh -c 'cmake --install "$1" --prefix "$2" >/dev/null' sh "$build" "$dest"
check "scr command installed" test -x "$dest/bin/scr"
check "header installed" test -f "$dest/include/scr.h"
pc=$(find "$dest" -name scr.pc | head -1)
check "pkg-config file installed" test -n "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
check "the .pc files name the license" sh -c 'grep -qx "License: BSD-3-Clause" "$1" && pkg-config --validate scr' sh "$pc"
cat >"$dest/app.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <scr.h>
int main(void)
{
    const char *v = SCR_Get_version();
    printf("%s\n", v);
    return strstr(v, SCR_VERSION) ? 0 : 1;
}
EOC
check "app builds with pkg-config" sh -c '"$2" $3 "$1/app.c" -o "$1/app" $(pkg-config --cflags --libs scr)' sh "$dest" "$cc" "$extra"
libdir=$(pkg-config --variable=libdir scr)
check "app runs against the installed library" env LD_LIBRARY_PATH="$libdir" "$dest/app"
if command -v c++ >/dev/null; then
	check "scr.h compiles and links as C++" sh -c 'c++ $4 "$1" -o "$2/cxxapp" $(pkg-config --cflags --libs scr) && LD_LIBRARY_PATH="$3" "$2/cxxapp"' \
		sh "$(dirname "$0")/cxx_header.cpp" "$dest" "$libdir" "$app_xflags"
fi
check "fti.h installed" test -f "$dest/include/fti.h"
cat >"$dest/fti_names.c" <<'EOC'
#include <fti.h>
/* names FTI programs take from FTI's headers, with FTI's values */
_Static_assert(FTI_ENDW == 995 && FTI_REJW == 996 && FTI_BASE == 990, "tokens");
_Static_assert(FTI_EROR == 4 && FTI_WARN == 3 && FTI_INFO == 2 && FTI_DBUG == 1, "levels");
_Static_assert(FTI_IO_POSIX == 1001 && FTI_IO_HDF5 == 1005 && FTI_WORD == 16, "modes");
_Static_assert(sizeof(FTIT_double) == 8 && sizeof(FTIT_float) == 4, "bit views");
int main(void) { FTIT_double d = {.value = 1.0}; return d.byte[7] == 0x3f ? 0 : 1; }
EOC
if command -v mpicc >/dev/null; then
	check "FTI's constants and bit views compile with FTI's values" \
		sh -c 'OMPI_CC="$2" mpicc $3 "$1/fti_names.c" -o "$1/fti_names" -I"$1/include" && "$1/fti_names"' \
		sh "$dest" "$cc" "$extra"
fi
if command -v mpicc >/dev/null; then
	check "an FTI program builds unchanged: mpicc heat_fti.c -lscr" \
		sh -c 'OMPI_CC="$2" MPICH_CC="$2" mpicc $3 "$4" -o "$1/heat_fti" -I"$1/include" -L"$5" -lscr' \
		sh "$dest" "$cc" "$extra" "$(dirname "$0")/../../examples/heat_fti.c" "$libdir"
fi
if command -v mpicxx >/dev/null && command -v c++ >/dev/null; then
	# the C++ compiler and flags the scr.h check above took
	check "an FTI program in C++ builds unchanged: mpicxx fti_cpp.cpp -lscr" \
		sh -c 'OMPI_CXX=c++ mpicxx $3 "$4" -o "$1/fti_cpp" -I"$1/include" -L"$2" -lscr' \
		sh "$dest" "$libdir" "$app_xflags" "$(dirname "$0")/../sim/fti_cpp.cpp"
fi
if [ -f "$dest/include/scr.mod" ]; then
	check "Fortran module installed" test -f "$dest/include/scr.mod"
	check "and with it SCR v3's scrf.h and scrf.pc" test -f "$dest/include/scrf.h" -a -f "$(dirname "$pc")/scrf.pc"
fi
check "installed scr runs" sh -c '"$1/bin/scr" --version | grep -q "^scr "' sh "$dest"
cmakedir=$(dirname "$pc")/../cmake/SCR
cmakedir=$(cd "$cmakedir" 2>/dev/null && pwd)
check "CMake package installed (SCRConfig.cmake, its version file, SCRTargets.cmake)" \
	test -f "$cmakedir/SCRConfig.cmake" -a -f "$cmakedir/SCRConfigVersion.cmake" -a -f "$cmakedir/SCRTargets.cmake"
export CMAKE_PREFIX_PATH=$dest
check "SCRConfig.cmake names the license" grep -q 'set(SCR_LICENSE "BSD-3-Clause")' "$cmakedir/SCRConfig.cmake"
app_checks "$dest/counter" "$cc" "$extra" "$cmakedir"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
