/* SPDX-License-Identifier: BSD-3-Clause */
/* fti.h - FTI's application interface, implemented by libscr.
 *
 * An application written for FTI (the Fault Tolerance Interface) builds
 * unchanged against SCR: "mpicc app.c -lscr" with this header.  FTI_Init
 * reads FTI's configuration file and sets SCR up from it; FTI_Protect,
 * FTI_Checkpoint and FTI_Recover use SCR's memory-protect API (scr_mem.h),
 * so checkpoints get SCR's redundancy, flush, fetch, rebuild and scavenge.
 * FTI's level 1 is SINGLE, 2 PARTNER, 3 Reed-Solomon, 4 level 1 flushed to
 * the prefix (glbl_dir).  Return codes are FTI's; FTI_Checkpoint returns
 * FTI_DONE when it took the checkpoint.  docs/fti.md has the details: the
 * configuration keys honoured and ignored, and what differs from FTI.
 */
#ifndef SCR_FTI_H
#define SCR_FTI_H

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FTI's buffer size for names and paths */
#define FTI_BUFS 256

/* return codes */
#define FTI_DONE 1    /* FTI_Checkpoint (and FTI_Snapshot) took a checkpoint */
#define FTI_SCES 0    /* success */
#define FTI_NSCS (-1) /* failure */
#define FTI_NREC (-2) /* recovery failed */
#define FTI_HEAD 2    /* FTI_Init in a head process (never with SCR: no heads) */

/* names FTI programs use from FTI's headers (fti.h includes FTI's
 * internal header there): the RS word size, FTI_Print's levels, the tokens
 * its head processes exchange (FTI_ENDW: end of the run), the I/O modes of
 * ckpt_io.  SCR runs no heads and chooses its own I/O; the values are
 * FTI's so programs that compare or print them keep working. */
#define FTI_WORD 16
#define FTI_DBUG 1 /* FTI_Print levels */
#define FTI_INFO 2
#define FTI_WARN 3
#define FTI_EROR 4
#define FTI_IDCP 5
#define FTI_BASE 990 /* checkpoint tokens */
#define FTI_CKTW 991
#define FTI_XORW 992
#define FTI_RSEW 993
#define FTI_PFSW 994
#define FTI_ENDW 995
#define FTI_REJW 996
#define FTI_IO_POSIX 1001 /* ckpt_io modes */
#define FTI_IO_MPI 1002
#define FTI_IO_FTIFF 1003
#define FTI_IO_SIONLIB 1004
#define FTI_IO_HDF5 1005
#define FTI_IO_IME 1006

/* FTI's allocation shorthand: FTI programs use it, and the C library
 * headers above, through fti.h as FTI's own header includes them */
#define talloc(type, num) (type *)malloc(sizeof(type) * (num))

/* a double and a float seen as bits (FTI's bit-flip injection uses them) */
typedef union FTIT_double {
    double value;
    float floatval[2];
    int intval[2];
    char byte[8];
} FTIT_double;

typedef union FTIT_float {
    float value;
    int intval;
    char byte[4];
} FTIT_float;

/* checkpoint levels for FTI_Checkpoint */
typedef enum {
    FTI_L1 = 1, /* node-local cache (SCR SINGLE) */
    FTI_L2,     /* copy on a partner node (SCR PARTNER) */
    FTI_L3,     /* Reed-Solomon across group_size nodes (SCR RS) */
    FTI_L4,     /* the parallel file system (level 1, flushed) */
    FTI_L1_DCP, /* differential levels 1-3: FTI takes them as 1-3 */
    FTI_L2_DCP,
    FTI_L3_DCP,
    FTI_L4_DCP,       /* level 4; differential when enable_dcp = 1 */
    FTI_L4_H5_SINGLE, /* HDF5 single file: taken as level 4 */
    FTI_MIN_LEVEL_ID = FTI_L1,
    FTI_MAX_LEVEL_ID = FTI_L4_H5_SINGLE
} FTIT_level;

/* a data type handle */
typedef int fti_id_t;
#define FTIT_type fti_id_t

#ifdef __cplusplus
extern "C" {
#endif

/* the application's communicator: a duplicate of FTI_Init's globalComm
 * (SCR has no head processes), valid from FTI_Init to MPI_Finalize */
extern MPI_Comm FTI_COMM_WORLD;

/* predefined types: char, short, int, long, their unsigned forms, float,
 * double, long double */
extern fti_id_t FTI_CHAR;
extern fti_id_t FTI_SHRT;
extern fti_id_t FTI_INTG;
extern fti_id_t FTI_LONG;
extern fti_id_t FTI_UCHR;
extern fti_id_t FTI_USHT;
extern fti_id_t FTI_UINT;
extern fti_id_t FTI_ULNG;
extern fti_id_t FTI_SFLT;
extern fti_id_t FTI_DBLE;
extern fti_id_t FTI_LDBE;

/* Read configFile, set SCR up and call SCR_Init (after MPI_Init).
 * globalComm must hold every process of MPI_COMM_WORLD.  FTI_SCES, or
 * FTI_NSCS with one line on stderr saying why. */
int FTI_Init(const char *configFile, MPI_Comm globalComm);
/* non-zero while a checkpoint of an earlier run waits for FTI_Recover */
int FTI_Status(void);

/* a type of size bytes, for FTI_Protect */
int FTI_InitType(fti_id_t *type, int size);

/* FTI's HDF5 group (FTI_InitGroup; NULL: the root group "/") */
typedef struct FTIT_H5Group {
    int id;
    char name[FTI_BUFS];
    char fullName[FTI_BUFS];
    int childrenNo;
    int childrenID[FTI_BUFS];
} FTIT_H5Group;

/* HDF5 groups and dataset names (FTI_InitGroup, FTI_DefineDataset,
 * FTI_SetAttribute): kept as FTI keeps them without HDF5, with its checks;
 * SCR's checkpoints are binary and hold the bytes.  The global datasets of
 * FTI's HDF5 mode (FTI_DefineGlobalDataset ... FTI_RecoverDatasetDimension)
 * fail with FTI_NSCS and one line, as in an FTI built without HDF5. */
typedef uint64_t FTIT_hsize_t;
int FTI_InitGroup(FTIT_H5Group *h5group, const char *name, FTIT_H5Group *parent);
int FTI_RenameGroup(FTIT_H5Group *h5group, const char *name);
int FTI_DefineDataset(int id, int rank, int *dimLength, const char *name,
                      FTIT_H5Group *h5group);

/* FTI_SetAttribute's flags, which combine with | */
typedef int FTIT_attributeFlag;
enum { FTI_ATTRIBUTE_NULL = 0x0, FTI_ATTRIBUTE_NAME = 0x1, FTI_ATTRIBUTE_DIM = 0x2 };
typedef struct FTIT_dimension {
    int ndims;
    int64_t count[32];
} FTIT_dimension;
typedef struct FTIT_attribute {
    char name[FTI_BUFS];
    FTIT_dimension dim;
} FTIT_attribute;
int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag);

int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength, const char *name,
                            FTIT_H5Group *h5group, fti_id_t tid);
int FTI_AddSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did);
int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength);
int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count,
                     int did);
int FTI_GetDatasetRank(int did);
FTIT_hsize_t *FTI_GetDatasetSpan(int did, int rank);
int FTI_RecoverDatasetDimension(int did);

/* composite types, as FTI 1.6 has them: a type of size bytes whose fields
 * (a scalar, or an array of ndims dimensions) are described for HDF5
 * output; checkpoints hold the bytes.  The type handle, or FTI_NSCS. */
fti_id_t FTI_InitCompositeType(const char *name, size_t size, FTIT_H5Group *h5g);
int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, size_t offset);
int FTI_AddVectorField(fti_id_t id, const char *name, fti_id_t tid, size_t offset,
                       int ndims, int *dim_sizes);

/* protect count elements of type at ptr under id (id again: move/resize) */
int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid);
/* bytes variable id has in the checkpoint (collective while recovering) */
int64_t FTI_GetStoredSize(int id);
/* while recovering: realloc ptr to the size id has in the checkpoint and
 * protect it there; returns the new pointer (ptr when it cannot) */
void *FTI_Realloc(int id, void *ptr);

/* write every protected variable as checkpoint id at level (FTIT_level);
 * FTI_DONE, or FTI_NSCS */
int FTI_Checkpoint(int id, int level);
/* restore every protected variable: FTI_SCES, or FTI_NREC */
int FTI_Recover(void);
/* restore one variable, between FTI_RecoverVarInit and _Finalize */
int FTI_RecoverVarInit(void);
int FTI_RecoverVar(int id);
int FTI_RecoverVarFinalize(void);
/* staging (needs [basic] enable_staging = 1), as FTI does it without head
 * processes: FTI_GetStageDir gives a node-local directory; FTI_SendFile
 * copies lpath to rpath (whose directory must exist) before it returns and
 * removes lpath, returning a request id, or FTI_NSCS; FTI_GetStageStatus
 * gives the request's status once (FTI_SI_SCES), FTI_SI_NINI after */
#define FTI_SI_FAIL 0x4
#define FTI_SI_SCES 0x3
#define FTI_SI_ACTV 0x2
#define FTI_SI_PEND 0x1
#define FTI_SI_NINI 0x0
int FTI_GetStageDir(char *stageDir, int maxLen);
int FTI_SendFile(const char *lpath, const char *rpath);
int FTI_GetStageStatus(int ID);

/* fault injection for tests ([injection] in the configuration): on
 * process rank, flip bit position of element index of variable datasetID
 * (float or double), number times at most, frequency seconds apart;
 * FTI_SCES when it flipped one, else FTI_NSCS */
int FTI_BitFlip(int datasetID);

/* named variables: the id of name, a new one (the number of variables
 * known, as in FTI) the first time; the names are in every checkpoint, so
 * after a restart a name has its id again.  FTI_getIDFromString: -1 for a
 * name never set. */
int FTI_setIDFromString(const char *name);
int FTI_getIDFromString(const char *name);

/* an incremental checkpoint, a variable at a time (FTI 1.6's rules):
 * FTI_InitICP opens checkpoint id at level (activate false: the three
 * calls do nothing and return FTI_SCES); FTI_AddVarICP writes one
 * protected variable (FTI_NSCS for one not protected or added already);
 * FTI_FinalizeICP (collective) completes it: FTI_SCES, or FTI_NSCS when
 * some process did not add every protected variable or a write failed */
int FTI_InitICP(int id, int level, bool activate);
int FTI_AddVarICP(int varID);
int FTI_FinalizeICP(void);
/* call once per iteration: recovers on a restart, else checkpoints at the
 * level whose interval (ckpt_l1..ckpt_l4 minutes) has come */
int FTI_Snapshot(void);
/* SCR_Finalize: the last checkpoint reaches glbl_dir if keep_last_ckpt */
int FTI_Finalize(void);

/* FTI_GetConfig's answer: FTI's structs with the members that have a
 * meaning here (FTI's internal pointers and head-process state are left
 * out: a program that reads them does not compile, rather than read
 * nothing).  configuration.ioMode is -1 when configFile could not be read. */
typedef struct FTIT_configuration {
    bool stagingEnabled, dcpFtiff, dcpPosix, keepL4Ckpt, keepHeadsAlive;
    int dcpMode, dcpBlockSize;
    char cfgFile[FTI_BUFS];
    int saveLastCkpt, verbosity;
    int blockSize, transferSize; /* bytes */
    int maxVarId;
    int ckptTag, stageTag, finalTag, generalTag;
    int test, l3WordSize;
    int ioMode; /* FTI_IO_POSIX .. FTI_IO_IME, -1: not read */
    bool h5SingleFileEnable, h5SingleFileKeep, h5SingleFileIsInline;
    char h5SingleFileDir[FTI_BUFS], h5SingleFilePrefix[FTI_BUFS];
    char stageDir[FTI_BUFS], localDir[FTI_BUFS], glbalDir[FTI_BUFS], metadDir[FTI_BUFS];
    char lTmpDir[FTI_BUFS], gTmpDir[FTI_BUFS], mTmpDir[FTI_BUFS]; /* empty here */
    size_t cHostBufSize;
    char suffix[4]; /* of the checkpoint files: "fti" */
} FTIT_configuration;

typedef struct FTIT_topology {
    int nbProc, nbNodes, myRank, splitRank, nodeSize, nbHeads, nbApprocs, groupSize;
    int sectorID, nodeID, groupID, amIaHead, headRank, headRankNode, nodeRank, groupRank;
    int right, left;
    int body[FTI_BUFS]; /* the ranks on this node (the first FTI_BUFS) */
} FTIT_topology;

typedef struct FTIT_checkpoint {
    char dir[FTI_BUFS], L4Replica[FTI_BUFS], dcpDir[FTI_BUFS], archDir[FTI_BUFS];
    char archMeta[FTI_BUFS], metaDir[FTI_BUFS], dcpName[FTI_BUFS];
    bool isDcp, recoIsDcp, hasDcp, hasCkpt;
    int isInline, ckptIntv, ckptCnt, ckptDcpIntv, ckptDcpCnt;
    bool localReplica;
} FTIT_checkpoint;

typedef struct FTIT_injection {
    int rank, index, position, number, frequency, counter;
    double timer;
} FTIT_injection;

typedef struct FTIT_execution {
    char id[FTI_BUFS];
    int reco, ckptLvel, ckptIntv, lastCkptLvel, wasLastOffline;
    int basicTypesOffsetId, basicTypesNum;
    /* FTI_Snapshot's clock: seconds per iteration, and when it measures */
    double iterTime, lastIterTime, meanIterTime, globMeanIter, totalIterTime;
    unsigned int syncIter;
    int syncIterMax;
    unsigned int minuteCnt;
    bool hasCkpt, h5SingleFile;
    unsigned int ckptCnt, ckptIcnt, ckptId, ckptNext, ckptLast;
    int32_t ckptSize; /* bytes of the protected variables, this process */
    unsigned int nbVar, nbVarStored, nbType;
    int nbGroup, initSCES;
    char h5SingleFileLast[FTI_BUFS], h5SingleFileReco[FTI_BUFS];
    MPI_Comm globalComm, groupComm, nodeComm;
} FTIT_execution;

typedef struct {
    FTIT_configuration configuration;
    FTIT_execution execution;
    FTIT_topology topology;
    FTIT_checkpoint checkpoint[5]; /* [1..4]: the levels */
    FTIT_injection injection;
} FTIT_allConfiguration;

/* the configuration in configFile as FTI_Init takes it, the topology of
 * globalComm (collective over it) and, after FTI_Init, the run's state */
FTIT_allConfiguration FTI_GetConfig(const char *configFile, MPI_Comm globalComm);

#ifdef __cplusplus
}
#endif

#endif
