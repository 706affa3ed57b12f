/* acct_cluster_bw — point-to-point bandwidth between two ranks.
 *
 * Used by the cluster tests to prove that the emulated partitions really have
 * different links: rank 0 and rank N-1 (on different emulated nodes when
 * started with one rank per node) ping-pong a message of SIZE bytes REPS times
 * after a warm-up, and rank 0 prints the median bandwidth of one direction:
 *
 *   acct_cluster_bw: bytes=4194304 reps=12 hosts=acct-n1,acct-n2 \
 *       median_MBps=117.2 min_MBps=110.4 max_MBps=118.0 median_Mbitps=937.6
 *
 * Usage: acct_cluster_bw [-s BYTES] [-r REPS] [-w WARMUP]
 * Exit status: 0 on success, 1 on bad arguments or fewer than 2 ranks.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BW_TAG = 7, BW_HOST_MAX = 256 };

struct bw_options {
  long bytes;
  int reps;
  int warmup;
};

static int bw_parse(int argc, char **argv, struct bw_options *opt) {
  int c;
  opt->bytes = 4L << 20;
  opt->reps = 12;
  opt->warmup = 2;
  while ((c = getopt(argc, argv, "s:r:w:")) != -1) {
    char *end = NULL;
    long v;
    if (c == '?')
      return -1;
    v = strtol(optarg, &end, 10);
    if (end == optarg || *end != '\0' || v < 0)
      return -1;
    if (c == 's' && v > 0 && v <= (1L << 30))
      opt->bytes = v;
    else if (c == 'r' && v > 0 && v <= 100000)
      opt->reps = (int)v;
    else if (c == 'w' && v <= 1000)
      opt->warmup = (int)v;
    else
      return -1;
  }
  return 0;
}

static int bw_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One round trip between rank 0 and the peer; returns its duration on rank 0. */
static double bw_round(char *buf, long bytes, int rank, int peer) {
  double t0 = MPI_Wtime();
  if (rank == 0) {
    MPI_Send(buf, (int)bytes, MPI_BYTE, peer, BW_TAG, MPI_COMM_WORLD);
    MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, BW_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == peer) {
    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, BW_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, BW_TAG, MPI_COMM_WORLD);
  }
  return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
  struct bw_options opt;
  int rank = 0, size = 0, peer = 0, ok = 0, all_ok = 0, rc = 1;
  char *buf = NULL;
  double *rtt = NULL;
  char host[BW_HOST_MAX] = "", peer_host[BW_HOST_MAX] = "";

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (bw_parse(argc, argv, &opt) != 0 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: acct_cluster_bw [-s BYTES] [-r REPS] [-w WARMUP] (>= 2 ranks)\n");
    goto out;
  }

  peer = size - 1;
  gethostname(host, sizeof host - 1);
  if (rank == peer)
    MPI_Send(host, BW_HOST_MAX, MPI_CHAR, 0, BW_TAG, MPI_COMM_WORLD);
  else if (rank == 0)
    MPI_Recv(peer_host, BW_HOST_MAX, MPI_CHAR, peer, BW_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  buf = malloc((size_t)opt.bytes);
  rtt = calloc((size_t)opt.reps, sizeof *rtt);
  ok = buf != NULL && rtt != NULL;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) {
    if (rank == 0)
      fprintf(stderr, "acct_cluster_bw: out of memory\n");
    goto out;
  }
  memset(buf, rank & 0xff, (size_t)opt.bytes);

  for (int i = 0; i < opt.warmup; i++)
    bw_round(buf, opt.bytes, rank, peer);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < opt.reps; i++)
    rtt[i] = bw_round(buf, opt.bytes, rank, peer);

  if (rank == 0) {
    qsort(rtt, (size_t)opt.reps, sizeof *rtt, bw_cmp);
    /* One direction moves `bytes` in half a round trip. */
    double med = 2.0 * (double)opt.bytes / rtt[opt.reps / 2] / 1e6;
    double lo = 2.0 * (double)opt.bytes / rtt[opt.reps - 1] / 1e6;
    double hi = 2.0 * (double)opt.bytes / rtt[0] / 1e6;
    printf("acct_cluster_bw: bytes=%ld reps=%d hosts=%s,%s median_MBps=%.1f "
           "min_MBps=%.1f max_MBps=%.1f median_Mbitps=%.1f\n",
           opt.bytes, opt.reps, host, peer_host, med, lo, hi, med * 8.0);
    fflush(stdout);
  }
  rc = 0;

out:
  free(rtt);
  free(buf);
  MPI_Finalize();
  return rc;
}
