/* delayline: fixed one-way propagation delay, and optional random loss, between two network
 * interfaces (no netem here).
 *
 *   delayline [-r] [-l LOSS_A_TO_B_PCT,LOSS_B_TO_A_PCT] [-p UDP_PORT] [-s SEED]
 *             IF_A IF_B DELAY_A_TO_B_MS DELAY_B_TO_A_MS [SLOTS]
 *
 * -r: run SCHED_FIFO (priority 10) so that encoders and decoders busy on the same 2 cores do not
 * delay departures (it sleeps between frames; the kernel's RT throttling bounds it anyway).
 * -l: drop each frame with this probability (percent, 0..100) per direction, independently
 * (Bernoulli: random loss, as on a lossy radio link; a drop-tail queue's bursts come from tbf);
 * -p: only IPv4 UDP datagrams to this destination port are subject to it (e.g. RTCP alone);
 * -s: seed of the loss draws (default 1: runs are repeatable). Each direction draws from its own
 * sequence (A->B from SEED, B->A from SEED xor a constant), so which frames of a direction are
 * lost depends only on their order, not on the other direction's traffic. Drops are counted
 * (drop_loss).
 *
 * Every Ethernet frame received on IF_A is sent on IF_B DELAY_A_TO_B_MS later, and vice versa.
 * Runs inside a namespace of its own that holds the two veth ends (see amcast_testbed/netns.py).
 * Frames wait in one FIFO per direction of SLOTS fixed-size slots (default 4096, i.e. 8 MiB per
 * direction): memory is bounded; a frame arriving at a full FIFO is dropped and counted. A FIFO
 * is enough because the delay per direction is constant, so departures are in arrival order.
 * The loop sleeps in ppoll until the next departure or arrival (timer slack 1 us).
 * Prints "ready" on stdout once both sockets are bound; on SIGINT/SIGTERM prints its counters on
 * stderr as one JSON line and exits 0. Offloads must be off on both ends (no 64 KB GSO frames). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 2048   /* > 1514-byte frame + VLAN tag; larger frames are dropped and counted */

typedef struct {
  int64_t due_ns;
  uint16_t len;
  unsigned char data[SLOT_BYTES];
} slot_t;

typedef struct {
  int in_fd, out_fd;        /* receive here, send there */
  int64_t delay_ns;
  slot_t *slots;
  size_t nslots, head, count;
  uint64_t fwd, drop_full, drop_big, tx_err, drop_loss;
  double loss;              /* drop probability, 0..1 */
  uint64_t rng;             /* this direction's loss draws (splitmix64 state) */
} dir_t;

static int loss_port = -1;  /* -p: only UDP to this port is dropped; -1: every frame */
static uint64_t rng_seed = 1;
#define RNG_B_TO_A UINT64_C (0x5851F42D4C957F2D)

/* splitmix64: uniform in [0, 1) */
static double uniform (uint64_t *state)
{
  uint64_t z = (*state += UINT64_C (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
  return (double) ((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Whether the loss stage applies to this Ethernet frame (-p: IPv4 UDP to loss_port only). */
static int lossy (const unsigned char *f, ssize_t n)
{
  if (loss_port < 0)
    return 1;
  if (n < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4 || f[23] != 17)
    return 0;
  size_t ihl = (size_t) (f[14] & 0x0f) * 4;
  if (ihl < 20 || (ssize_t) (14 + ihl + 8) > n)
    return 0;
  return ((f[14 + ihl + 2] << 8) | f[14 + ihl + 3]) == loss_port;
}

static volatile sig_atomic_t stop_flag;

static void on_signal (int sig) { (void) sig; stop_flag = 1; }

static int64_t now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int open_iface (const char *name)
{
  int fd = socket (AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons (ETH_P_ALL));
  if (fd < 0) { perror ("socket(AF_PACKET)"); return -1; }
  unsigned idx = if_nametoindex (name);
  if (!idx) { fprintf (stderr, "delayline: no interface %s\n", name); close (fd); return -1; }
  struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons (ETH_P_ALL),
                             .sll_ifindex = (int) idx };
  if (bind (fd, (struct sockaddr *) &sll, sizeof sll) < 0) { perror ("bind"); close (fd); return -1; }
  int one = 1;   /* never see our own transmissions on this socket */
  if (setsockopt (fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0)
    perror ("PACKET_IGNORE_OUTGOING (falling back to sll_pkttype)");
  int rcvbuf = 4 << 20;
  setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  return fd;
}

/* Take every frame waiting on d->in_fd into the FIFO, stamped with its departure time. */
static void drain_input (dir_t *d)
{
  for (;;) {
    slot_t *s = &d->slots[(d->head + d->count) % d->nslots];
    static unsigned char spill[SLOT_BYTES];
    int full = d->count == d->nslots;
    struct sockaddr_ll from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom (d->in_fd, full ? spill : s->data, SLOT_BYTES, MSG_TRUNC,
                          (struct sockaddr *) &from, &fl);
    if (n < 0)
      return;                                  /* EAGAIN: drained (or an error: try later) */
    if (from.sll_pkttype == PACKET_OUTGOING)
      continue;
    if (full) { d->drop_full++; continue; }
    if (n > SLOT_BYTES) { d->drop_big++; continue; }
    if (d->loss > 0 && lossy (s->data, n) && uniform (&d->rng) < d->loss) { d->drop_loss++; continue; }
    s->len = (uint16_t) n;
    s->due_ns = now_ns () + d->delay_ns;
    d->count++;
  }
}

/* Send every frame whose departure time has come; returns the next departure time or -1. */
static int64_t release_due (dir_t *d, int64_t now)
{
  while (d->count) {
    slot_t *s = &d->slots[d->head];
    if (s->due_ns > now)
      return s->due_ns;
    if (send (d->out_fd, s->data, s->len, 0) < 0)
      d->tx_err++;                             /* peer backlog full: the frame is lost, as on a wire */
    else
      d->fwd++;
    d->head = (d->head + 1) % d->nslots;
    d->count--;
  }
  return -1;
}

static int parse_ms (const char *s, int64_t *ns)
{
  char *end;
  double v = strtod (s, &end);
  if (end == s || *end || !(v >= 0 && v <= 10000)) return -1;
  *ns = (int64_t) (v * 1e6 + 0.5);
  return 0;
}

static int parse_loss (const char *s, double *ab, double *ba)
{
  char *end;
  *ab = strtod (s, &end);
  if (end == s || *end != ',') return -1;
  const char *t = end + 1;
  *ba = strtod (t, &end);
  if (end == t || *end || !(*ab >= 0 && *ab <= 100) || !(*ba >= 0 && *ba <= 100)) return -1;
  *ab /= 100;
  *ba /= 100;
  return 0;
}

int main (int argc, char **argv)
{
  int rt = 0, opt;
  double lab = 0, lba = 0;
  while ((opt = getopt (argc, argv, "rl:p:s:")) != -1) {
    char *end;
    switch (opt) {
      case 'r': rt = 1; break;
      case 'l':
        if (parse_loss (optarg, &lab, &lba)) {
          fprintf (stderr, "delayline: -l wants LOSS_A_TO_B_PCT,LOSS_B_TO_A_PCT in 0..100\n");
          return 2;
        }
        break;
      case 'p':
        loss_port = (int) strtol (optarg, &end, 10);
        if (*end || loss_port < 1 || loss_port > 65535) {
          fprintf (stderr, "delayline: -p wants a UDP port 1..65535\n");
          return 2;
        }
        break;
      case 's':
        rng_seed = strtoull (optarg, &end, 10);
        if (*end) { fprintf (stderr, "delayline: -s wants an integer seed\n"); return 2; }
        break;
      default: opt = '?'; break;
    }
    if (opt == '?') break;
  }
  argv += optind - 1;
  argc -= optind - 1;
  if (opt == '?' || argc < 5 || argc > 6) {
    fprintf (stderr, "usage: delayline [-r] [-l LOSS_A_TO_B_PCT,LOSS_B_TO_A_PCT] [-p UDP_PORT] "
             "[-s SEED] IF_A IF_B DELAY_A_TO_B_MS DELAY_B_TO_A_MS [SLOTS]\n");
    return 2;
  }
  int64_t dab, dba;
  long nslots = argc == 6 ? strtol (argv[5], NULL, 10) : 4096;
  if (parse_ms (argv[3], &dab) || parse_ms (argv[4], &dba) || nslots < 16 || nslots > 1 << 20) {
    fprintf (stderr, "delayline: delays must be 0..10000 ms, SLOTS 16..1048576\n");
    return 2;
  }
  int fa = open_iface (argv[1]), fb = open_iface (argv[2]);
  if (fa < 0 || fb < 0) return 1;
  dir_t dirs[2] = {
    { .in_fd = fa, .out_fd = fb, .delay_ns = dab, .nslots = (size_t) nslots, .loss = lab,
      .rng = rng_seed },
    { .in_fd = fb, .out_fd = fa, .delay_ns = dba, .nslots = (size_t) nslots, .loss = lba,
      .rng = rng_seed ^ RNG_B_TO_A },
  };
  for (int i = 0; i < 2; i++)
    if (!(dirs[i].slots = calloc ((size_t) nslots, sizeof (slot_t)))) { perror ("calloc"); return 1; }

  if (rt) {
    struct sched_param sp = { .sched_priority = 10 };
    if (sched_setscheduler (0, SCHED_FIFO, &sp) < 0)
      perror ("delayline: SCHED_FIFO (continuing without)");
  }
  prctl (PR_SET_TIMERSLACK, 1UL);            /* wake within ~1 us of the departure time */
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigset_t block, orig;                      /* signals arrive only inside ppoll: no lost wakeup */
  sigemptyset (&block);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGTERM);
  sigprocmask (SIG_BLOCK, &block, &orig);
  printf ("ready\n");
  fflush (stdout);

  struct pollfd pfd[2] = { { .fd = fa, .events = POLLIN }, { .fd = fb, .events = POLLIN } };
  while (!stop_flag) {
    int64_t now = now_ns (), next = -1;
    for (int i = 0; i < 2; i++) {
      int64_t t = release_due (&dirs[i], now);
      if (t >= 0 && (next < 0 || t < next)) next = t;
    }
    struct timespec to, *top = NULL;
    if (next >= 0) {
      int64_t wait = next - now_ns ();
      if (wait < 0) wait = 0;
      to.tv_sec = wait / 1000000000;
      to.tv_nsec = wait % 1000000000;
      top = &to;
    }
    int r = ppoll (pfd, 2, top, &orig);
    if (r < 0 && errno != EINTR) { perror ("ppoll"); break; }
    for (int i = 0; i < 2; i++)
      if (r > 0 && (pfd[i].revents & POLLIN))
        drain_input (&dirs[i]);
  }
  fprintf (stderr, "{\"delayline\":\"%s-%s\",\"fwd_ab\":%llu,\"fwd_ba\":%llu,\"drop_full\":%llu,"
           "\"drop_big\":%llu,\"tx_err\":%llu,\"drop_loss_ab\":%llu,\"drop_loss_ba\":%llu}\n",
           argv[1], argv[2],
           (unsigned long long) dirs[0].fwd, (unsigned long long) dirs[1].fwd,
           (unsigned long long) (dirs[0].drop_full + dirs[1].drop_full),
           (unsigned long long) (dirs[0].drop_big + dirs[1].drop_big),
           (unsigned long long) (dirs[0].tx_err + dirs[1].tx_err),
           (unsigned long long) dirs[0].drop_loss, (unsigned long long) dirs[1].drop_loss);
  return 0;
}
