/* SPDX-License-Identifier: BSD-3-Clause */
// cxx_header.cpp - scr.h compiles and links as C++ (extern "C" linkage).
#include <cstring>
#include <scr.h>

int main()
{
    const char *v = SCR_Get_version();
    int (*start)(const char *, int) = SCR_Start_output;
    (void)start;
    return v && std::strstr(v, SCR_VERSION) && SCR_MAX_FILENAME == 1024 ? 0 : 1;
}
