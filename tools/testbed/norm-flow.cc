/* norm-flow: a NORM (RFC 5740) bulk stream with NORM-CC, as a competing flow of the testbed.
 *
 *   norm-flow send --group ADDR --port P --iface IF --duration S [--t0 EPOCH] [--start S]
 *                  [--rate-max BPS] [--rate-csv FILE] [--interval S]
 *   norm-flow recv --group ADDR --port P --iface IF --duration S --csv FILE [--t0 EPOCH]
 *                  [--interval S]
 *
 * send: from t0 + start for `duration` seconds, writes to one NORM_OBJECT_STREAM as fast as the
 * stream accepts (NormStreamWrite until it copies less, then wait for NORM_TX_QUEUE_VACANCY),
 * with NormSetCongestionControl(session, true): the transmission rate is NORM-CC's, not fixed.
 * --rate-csv writes "time_s,rate_bps,grtt_s" every interval (NormGetTxRate: NORM-CC's current
 * rate). Ends with one JSON line (bytes written, rate changes, final rate).
 * recv: joins the group on IF, reads the stream and writes "time_s,bytes" every interval from
 * max(t0, now) to t0 + duration (time_s: CLOCK_REALTIME at the interval's start; bytes: stream
 * payload delivered to the application in it; idle intervals too), the format of flowgen.py's
 * sinks (docs/run-directory.md); ends by itself; one JSON line at the end.
 *
 * Written in the C subset of C++: Debian's normApi.h (libnorm-dev 1.5.9) does not compile as C
 * (NormGetRxBindAddress takes C++ references, NormStreamGetVacancy has a default argument).
 * The NORM parameters and why they were chosen are in docs/testbed.md ("NORM").
 * Node ids are the interface's IPv4 address: every namespace shares the root's hostname, so
 * NORM's default (the address the hostname resolves to) would give every host the same id.
 */
#include <normApi.h>

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- parameters (docs/testbed.md, "NORM") ------------------------------------------------ */
static const unsigned SEGMENT_SIZE = 1400;       /* payload bytes per NORM_DATA, ~ TCP's MSS */
static const unsigned BLOCK_SIZE = 64;           /* source segments per FEC block (k) */
static const unsigned NUM_PARITY = 16;           /* parity segments available per block (n-k) */
static const unsigned TX_BUFFER = 4u << 20;      /* NormStartSender bufferSpace */
static const unsigned STREAM_BUFFER = 2u << 20;  /* NormStreamOpen repair window */
static const unsigned RX_BUFFER = 4u << 20;      /* NormStartReceiver bufferSpace per sender */
static const unsigned SOCKET_BUFFER = 1u << 20;  /* rx/tx UDP socket buffers */
static const double GRTT_ESTIMATE = 0.1;         /* initial GRTT, s (library default 0.25-0.5) */
static const double GRTT_MAX = 2.0;              /* cap on the advertised GRTT, s (default 10) */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    while (!stop_flag) {
        double d = t - now_s();
        if (d <= 0)
            return;
        struct timespec ts;
        ts.tv_sec = (time_t)d;
        ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
}

struct opts {
    const char *mode, *group, *iface, *csv, *rate_csv;
    int port;
    double t0, start, duration, interval, rate_max;
};

static void usage(void)
{
    fprintf(stderr,
            "usage: norm-flow send --group ADDR --port P --iface IF --duration S [--t0 EPOCH]\n"
            "                      [--start S] [--rate-max BPS] [--rate-csv FILE] [--interval S]\n"
            "       norm-flow recv --group ADDR --port P --iface IF --duration S --csv FILE\n"
            "                      [--t0 EPOCH] [--interval S]\n");
    exit(2);
}

static double num(const char *s, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end) {
        fprintf(stderr, "norm-flow: bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

static struct opts parse(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof o);
    o.t0 = -1;
    o.interval = 1.0;
    o.rate_max = -1;
    if (argc < 2 || (strcmp(argv[1], "send") && strcmp(argv[1], "recv")))
        usage();
    o.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i];
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (!strcmp(k, "--group")) o.group = v;
        else if (!strcmp(k, "--port")) o.port = (int)num(v, k);
        else if (!strcmp(k, "--iface")) o.iface = v;
        else if (!strcmp(k, "--csv")) o.csv = v;
        else if (!strcmp(k, "--rate-csv")) o.rate_csv = v;
        else if (!strcmp(k, "--t0")) o.t0 = num(v, k);
        else if (!strcmp(k, "--start")) o.start = num(v, k);
        else if (!strcmp(k, "--duration")) o.duration = num(v, k);
        else if (!strcmp(k, "--interval")) o.interval = num(v, k);
        else if (!strcmp(k, "--rate-max")) o.rate_max = num(v, k);
        else usage();
    }
    struct in_addr a;
    if (!o.group || inet_pton(AF_INET, o.group, &a) != 1 || !IN_MULTICAST(ntohl(a.s_addr))) {
        fprintf(stderr, "norm-flow: --group must be an IPv4 multicast address\n");
        exit(2);
    }
    if (o.port <= 0 || o.port > 65535 || !o.iface || !(o.duration > 0) || !(o.interval > 0)) {
        fprintf(stderr, "norm-flow: need --port 1..65535, --iface, --duration > 0, --interval > 0\n");
        exit(2);
    }
    if (!strcmp(o.mode, "recv") && !o.csv) {
        fprintf(stderr, "norm-flow: recv needs --csv FILE\n");
        exit(2);
    }
    if (o.t0 < 0)
        o.t0 = now_s();
    return o;
}

/* The interface's IPv4 address as a NORM node id (unique per testbed host). */
static NormNodeId iface_node_id(const char *ifname)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (s < 0 || ioctl(s, SIOCGIFADDR, &ifr) < 0) {
        fprintf(stderr, "norm-flow: no IPv4 address on %s: %s\n", ifname, strerror(errno));
        exit(1);
    }
    close(s);
    return ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
}

static NormSessionHandle open_session(NormInstanceHandle inst, const struct opts *o)
{
    NormSessionHandle s = NormCreateSession(inst, o->group, (UINT16)o->port, iface_node_id(o->iface));
    if (s == NORM_SESSION_INVALID) {
        fprintf(stderr, "norm-flow: NormCreateSession(%s/%d) failed\n", o->group, o->port);
        exit(1);
    }
    if (!NormSetMulticastInterface(s, o->iface)) {
        fprintf(stderr, "norm-flow: NormSetMulticastInterface(%s) failed\n", o->iface);
        exit(1);
    }
    NormSetTTL(s, 8);
    NormSetMulticastLoopback(s, false);
    return s;
}

/* Wait for the instance's descriptor to become readable, at most `timeout` seconds. */
static void wait_events(NormInstanceHandle inst, double timeout)
{
    struct pollfd p;
    p.fd = (int)NormGetDescriptor(inst);
    p.events = POLLIN;
    p.revents = 0;
    int ms = timeout <= 0 ? 0 : (int)(timeout * 1e3) + 1;
    poll(&p, 1, ms);
}

static int do_send(const struct opts *o)
{
    double a = o->t0 + o->start, b = a + o->duration;
    FILE *rf = NULL;
    if (o->rate_csv) {
        rf = fopen(o->rate_csv, "w");
        if (!rf) {
            fprintf(stderr, "norm-flow: %s: %s\n", o->rate_csv, strerror(errno));
            return 1;
        }
        fprintf(rf, "time_s,rate_bps,grtt_s\n");
        fflush(rf);
    }
    NormInstanceHandle inst = NormCreateInstance(false);
    if (inst == NORM_INSTANCE_INVALID) {
        fprintf(stderr, "norm-flow: NormCreateInstance failed\n");
        return 1;
    }
    NormSessionHandle s = open_session(inst, o);
    NormSetGrttEstimate(s, GRTT_ESTIMATE);
    NormSetGrttMax(s, GRTT_MAX);
    NormSetCongestionControl(s, true, true);         /* ccmode CC: NORM-CC sets the rate */
    NormSetTxRateBounds(s, -1.0, o->rate_max > 0 ? o->rate_max : -1.0);
    NormSetAutoParity(s, 0);                         /* no proactive FEC: repair on NACK only */
    sleep_until(a);
    if (stop_flag || now_s() >= b) {
        printf("{\"bytes\": 0, \"note\": \"on-period over before start\"}\n");
        return 0;
    }
    NormSessionId id = (NormSessionId)((getpid() ^ (unsigned)time(NULL)) & 0xffff);
    if (!NormStartSender(s, id, TX_BUFFER, (UINT16)SEGMENT_SIZE, (UINT16)BLOCK_SIZE,
                         (UINT16)NUM_PARITY, 0)) {
        fprintf(stderr, "norm-flow: NormStartSender failed\n");
        return 1;
    }
    NormSetTxSocketBuffer(s, SOCKET_BUFFER);
    NormObjectHandle st = NormStreamOpen(s, STREAM_BUFFER, NULL, 0);
    if (st == NORM_OBJECT_INVALID) {
        fprintf(stderr, "norm-flow: NormStreamOpen failed\n");
        return 1;
    }
    static char buf[65536];
    memset(buf, 0x5a, sizeof buf);
    unsigned long long written = 0;
    unsigned rate_changes = 0, cc_active = 0;
    int can_write = 1;
    double next_row = a;
    fprintf(stderr, "norm-flow send: %s/%d on %s, %.3f s, rate max %.0f bit/s, CC on\n",
            o->group, o->port, o->iface, b - a, o->rate_max);
    while (!stop_flag) {
        double t = now_s();
        if (t >= b)
            break;
        if (rf && t >= next_row) {
            fprintf(rf, "%.6f,%.0f,%.6f\n", next_row, NormGetTxRate(s), NormGetGrttEstimate(s));
            fflush(rf);
            next_row += o->interval;
            continue;
        }
        if (can_write) {
            unsigned n = NormStreamWrite(st, buf, sizeof buf);
            written += n;
            if (n < sizeof buf)
                can_write = 0;
        } else {
            double until = rf && next_row < b ? next_row : b;
            wait_events(inst, until - t);
        }
        NormEvent ev;
        while (NormGetNextEvent(inst, &ev, false)) {
            switch (ev.type) {
            case NORM_TX_QUEUE_VACANCY:
            case NORM_TX_QUEUE_EMPTY:
                if (ev.object == st)
                    can_write = 1;
                break;
            case NORM_TX_RATE_CHANGED:
                rate_changes++;
                break;
            case NORM_CC_ACTIVE:
                cc_active = 1;
                fprintf(stderr, "norm-flow send: %.3f CC active (feedback from receivers)\n",
                        now_s() - o->t0);
                break;
            case NORM_CC_INACTIVE:
                cc_active = 0;
                fprintf(stderr, "norm-flow send: %.3f CC inactive (no feedback)\n",
                        now_s() - o->t0);
                break;
            default:
                break;
            }
        }
    }
    double final_rate = NormGetTxRate(s), grtt = NormGetGrttEstimate(s);
    NormStreamClose(st, false);
    NormStopSender(s);
    NormDestroySession(s);
    NormDestroyInstance(inst);
    if (rf)
        fclose(rf);
    printf("{\"bytes\": %llu, \"rate_changes\": %u, \"cc_active\": %s, \"final_rate_bps\": %.0f, "
           "\"grtt_s\": %.4f}\n", written, rate_changes, cc_active ? "true" : "false", final_rate,
           grtt);
    return 0;
}

static int do_recv(const struct opts *o)
{
    double end = o->t0 + o->duration;
    FILE *f = fopen(o->csv, "w");
    if (!f) {
        fprintf(stderr, "norm-flow: %s: %s\n", o->csv, strerror(errno));
        return 1;
    }
    fprintf(f, "time_s,bytes\n");
    fflush(f);
    NormInstanceHandle inst = NormCreateInstance(false);
    if (inst == NORM_INSTANCE_INVALID) {
        fprintf(stderr, "norm-flow: NormCreateInstance failed\n");
        return 1;
    }
    NormSessionHandle s = open_session(inst, o);
    NormSetDefaultSyncPolicy(s, NORM_SYNC_CURRENT);   /* join the stream where it is */
    if (!NormStartReceiver(s, RX_BUFFER)) {
        fprintf(stderr, "norm-flow: NormStartReceiver failed\n");
        return 1;
    }
    NormSetRxSocketBuffer(s, SOCKET_BUFFER);
    fprintf(stderr, "norm-flow recv: %s/%d on %s until t0 + %.3f s\n", o->group, o->port, o->iface,
            o->duration);
    printf("listening\n");
    fflush(stdout);
    static char buf[65536];
    double start = now_s() > o->t0 ? now_s() : o->t0;
    unsigned long long total = 0, nbytes = 0;
    unsigned breaks = 0, streams = 0, k = 0;
    while (!stop_flag) {
        double t = now_s(), tick = start + (k + 1) * o->interval;
        if (t >= tick) {
            fprintf(f, "%.6f,%llu\n", start + k * o->interval, nbytes);
            fflush(f);
            k++;
            nbytes = 0;
            if (tick >= end)
                break;
            continue;
        }
        wait_events(inst, tick - t);
        NormEvent ev;
        while (NormGetNextEvent(inst, &ev, false)) {
            switch (ev.type) {
            case NORM_RX_OBJECT_NEW:
                if (NormObjectGetType(ev.object) == NORM_OBJECT_STREAM)
                    streams++;
                break;
            case NORM_RX_OBJECT_UPDATED:
                if (NormObjectGetType(ev.object) != NORM_OBJECT_STREAM)
                    break;
                for (;;) {
                    unsigned n = sizeof buf;
                    if (!NormStreamRead(ev.object, buf, &n))
                        breaks++;                  /* a gap NORM could not repair: resyncs */
                    if (n == 0)
                        break;
                    nbytes += n;
                    total += n;
                }
                break;
            default:
                break;
            }
        }
    }
    fclose(f);
    NormStopReceiver(s);
    NormDestroySession(s);
    NormDestroyInstance(inst);
    printf("{\"bytes\": %llu, \"streams\": %u, \"stream_breaks\": %u}\n", total, streams, breaks);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = parse(argc, argv);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGPIPE, SIG_IGN);
    return !strcmp(o.mode, "send") ? do_send(&o) : do_recv(&o);
}
