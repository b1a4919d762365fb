/* scr.h - the SCR application interface.
 *
 * Source-compatible with SCR v3's scr.h.  This version of the header
 * declares the calls implemented so far; the checkpoint API is added as the
 * library grows, under the same names and semantics as SCR v3.
 */
#ifndef SCR_H
#define SCR_H

#ifdef __cplusplus
extern "C" {
#endif

/* version of the SCR API this library implements (SCR v3 uses strings) */
#define SCR_MAJOR_VERSION "3"
#define SCR_MINOR_VERSION "1"
#define SCR_PATCH_VERSION "0"
#define SCR_VERSION "v3.1.0"

/* return codes: test against SCR_SUCCESS */
#define SCR_SUCCESS (0)
#define SCR_FAILURE (1)

/* characters in a file name returned by SCR, including the NUL */
#define SCR_MAX_FILENAME 1024

/* dataset flags for SCR_Start_output */
#define SCR_FLAG_NONE (0 << 0)
#define SCR_FLAG_CHECKPOINT (1 << 0)
#define SCR_FLAG_OUTPUT (1 << 1)

/* the library's version string, e.g. "SCR v3.1.0 (scr 0.1.0)"; never NULL */
char *SCR_Get_version(void);

#ifdef __cplusplus
}
#endif

#endif
