/* test_fault.c - fault points: unarmed, armed for another point or rank, and
 * the N-th hit killing the process */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "tap.h"

/* run points in a child with SCR_FAULT=spec; its exit status */
static int child(const char *spec, int hits, int rank)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (spec)
            setenv("SCR_FAULT", spec, 1);
        for (int i = 0; i < hits; i++)
            fault_point("a.b", rank);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
    ok(child(NULL, 3, 0) == 0, "unarmed: nothing happens");
    ok(child("a.b", 1, 0) == FAULT_EXIT_STATUS, "armed: the first hit dies");
    ok(child("a.bc", 3, 0) == 0, "another point: nothing");
    ok(child("a", 3, 0) == 0, "a prefix of the name: nothing");
    ok(child("a.b#3", 2, 0) == 0, "#3: two hits live");
    ok(child("a.b#3", 3, 0) == FAULT_EXIT_STATUS, "#3: the third dies");
    ok(child("a.b@2", 3, 1) == 0, "@2: rank 1 lives");
    ok(child("a.b#2@1", 2, 1) == FAULT_EXIT_STATUS, "#2@1: rank 1's second hit dies");
    return done_testing();
}
