/* SPDX-License-Identifier: BSD-3-Clause */
/* submit-raw.c - submit a batch job straight through libslurm, with a job
 * control environment (spank_job_env) taken from the command line, the way
 * a client that bypasses SCR's SPANK plugin could: test-slurm.sh checks
 * that job_submit/scr refuses what the SPANK plugin would have.
 *
 * usage: submit-raw [NAME=VALUE...]
 *   a one-node job running /bin/true in the current directory; prints its
 *   id and exits 0, or exits 1 with Slurm's error (libslurm prints the
 *   job_submit plugin's message before it).
 */
#include <stdio.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
    char cwd[4096], *env[] = {"PATH=/usr/bin:/bin", NULL};
    char script[] = "#!/bin/sh\ntrue\n";
    job_desc_msg_t d;
    submit_response_msg_t *resp = NULL;
    if (!getcwd(cwd, sizeof(cwd))) {
        perror("submit-raw: getcwd");
        return 1;
    }
    slurm_init(NULL);
    slurm_init_job_desc_msg(&d);
    d.name = "submit-raw";
    d.script = script;
    d.work_dir = cwd;
    d.std_out = "/dev/null";
    d.min_nodes = 1;
    d.user_id = getuid();
    d.group_id = getgid();
    d.environment = env;
    d.env_size = 1;
    d.spank_job_env = argv + 1;
    d.spank_job_env_size = (uint32_t)(argc - 1);
    if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS || !resp) {
        fprintf(stderr, "submit-raw: %s\n", slurm_strerror(slurm_get_errno()));
        slurm_fini();
        return 1;
    }
    printf("%u\n", resp->job_id);
    slurm_free_submit_response_response_msg(resp);
    slurm_fini();
    return 0;
}
