/* SPDX-License-Identifier: BSD-3-Clause */
/* fault.h - fault points: named places where a test can make a process die
 * or the next write fail, armed by the environment in every build, so the
 * tests exercise the code that ships.
 *
 *   SCR_FAULT=POINT[#N][@RANK][:ACTION]
 *
 * fires the N-th time (default: the first) a process reaches POINT, on
 * every process or only on rank RANK (root-side tools have rank -1).
 * ACTION is one of
 *
 *   exit    the process dies (_exit(99), no cleanup), as in a crash (default)
 *   node    the whole simulated node dies: every process in the caller's
 *           UTS namespace is killed (SIGKILL), as `tests/sim/simnode kill`
 *           does.  Only when that namespace is not PID 1's (where PID
 *           1's cannot be read, not the topmost readable ancestor's): on
 *           a real machine it says so in one line and acts as exit.  Its
 *           storage is left as it is (a process cannot take its node's
 *           mounts with it): the harness wipes a node it finds down
 *           (tests/fault/matrix.sh), as a lost node's storage is gone.
 *   enospc  the next write through io.c in this process (any thread)
 *           fails with ENOSPC
 *   eio     the same with EIO
 *   short   the next write through io.c writes only the first half of its
 *           bytes and reports all of them written, as a buggy or full
 *           device might: a torn file that only a size or CRC32 check sees
 *   einval  the next write through io.c fails with EINVAL, as a file
 *           system that takes O_DIRECT at open and refuses the write does
 *           (io.c then writes through the page cache)
 *
 * Each firing prints one line on stderr, "SCR_FAULT: rank R dies at POINT
 * (host, pid)" (or "kills its node at", "spoils the next write at"; the
 * spoilt write another), so a test can tell that the point was reached.
 * Unset, a fault point costs one cached getenv; io.c's writes one atomic
 * load.
 *
 * The points (tests/fault/matrix.sh reads this table; keep one per line):
 *
 *   output.written     SCR_Complete_output entered: files written, nothing recorded
 *   output.crc         sizes (SINGLE: CRC32s) of this rank's files taken
 *   output.redundancy  every rank's files are good; before the encode
 *   output.protected   the encode agreed on every rank; COMPLETE not recorded
 *   output.marked      the filemap records COMPLETE; before flush and eviction
 *   partner.block      PARTNER: first block of the partner copy received
 *   partner.half       PARTNER: half of the partner copy received
 *   partner.copied     PARTNER: partner copy complete and checked, not recorded
 *   encode.header      XOR/RS: redundancy file created, provisional header
 *   encode.block       XOR/RS: first parity piece written
 *   encode.half        XOR/RS: half of the parity pieces written
 *   encode.parity      XOR/RS: every parity piece written, header without CRC32s
 *   encode.done        XOR/RS: header rewritten with the CRC32s, not recorded
 *   flush.block        flush: a block of a file copied to the prefix
 *   flush.copied       flush: every file copied; no summary, no index entry
 *   flush.summary      flush: rank2file and summary written; index not complete
 *   flush.indexed      flush: index says complete; flush file not updated
 *   flush.placed       flush: this rank's files at their own paths; PLACED not recorded
 *   index.update       any index change: lock held, new index not yet written
 *   fetch.block        fetch: a block of a file copied into cache
 *   fetch.copied       fetch: every file copied and checked; not protected
 *   fetch.protected    fetch: copies' sizes checked (SCR_FETCH_PROTECT=1: redundancy
 *                      applied); COMPLETE not recorded
 *   rebuild.moved      SCR_Init: copies on their rank's node moved home; none sent
 *   rebuild.linked     SCR_Init: the first file of such a copy linked home
 *   rebuild.block      SCR_Init: a block of a copy moved to its rank's node
 *   rebuild.half       SCR_Init: half of such a copy moved
 *   recover.block      SCR_Init, XOR/RS: first rebuilt piece of a lost rank written
 *   recover.half       SCR_Init, XOR/RS: half of a lost rank's pieces written
 *   rebuild.recovered  SCR_Init: a dataset's lost files rebuilt; not recorded
 *   rebuild.written    SCR_Init: the rebuilt filemaps written
 *   scavenge.file      epilog/scr scavenge: a file copied to the prefix
 *   scavenge.rank      a rank's files copied; the node's record not written
 *   scavenge.record    the node's ranks copied; before its record is written
 *   scavenge.copied    this node's own ranks copied; COPIED not marked
 *   scavenge.finished  FINISHED marked; the elected node has not indexed
 *   scavenge.place     indexed complete; this node's files not yet at their own paths
 *   dsindex.rebuilt    index: missing ranks rebuilt; their record not written
 *   dsindex.r2f        index: rank2file tree written, no summary
 *   dsindex.summary    index: summary written; not in the index
 *   dsindex.indexed    index: complete in the index; files not yet at their own paths
 *   mem.begin          memory checkpoint: dataset started
 *   mem.var            memory checkpoint: after each variable written
 *   mem.meta           memory checkpoint: blocks written, not the metadata
 *   mem.sealed         memory checkpoint: file whole, dataset not complete
 */
#ifndef SCR_FAULT_H
#define SCR_FAULT_H

#define FAULT_EXIT_STATUS 99

/* rank: the caller's rank, -1 when it has none */
void fault_point(const char *point, int rank);

/* io.c, before each write of n > 0 bytes: 0 to write normally, an errno
 * the write must fail with, or FAULT_IO_SHORT; a pending fault is taken
 * (it spoils one write) */
#define FAULT_IO_SHORT (-1)
int fault_io_take(void);

#endif
