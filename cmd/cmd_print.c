/* cmd_print.c - scr print: show kvtree files as indented trees */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "kvtree.h"

int cmd_print(int argc, char **argv)
{
    int rc = 0;
    if (argc < 2 || strcmp(argv[1], "--help") == 0)
        return cmd_usage("print");
    for (int i = 1; i < argc; i++) {
        kvtree_t *t = kvtree_new();
        scr_error_t err;
        if (!t) {
            fprintf(stderr, "scr print: out of memory\n");
            return 1;
        }
        if (kvtree_read_file(argv[i], t, &err) < 0) {
            fprintf(stderr, "scr print: %s\n", err.text);
            rc = 1;
        } else {
            if (argc > 2)
                printf("%s:\n", argv[i]);
            kvtree_print(t, 2, stdout);
        }
        kvtree_delete(&t);
    }
    return rc;
}
