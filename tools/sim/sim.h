/* sim.h - the ns-3 harness of gst-amcast (docs/sim.md): what the scenario says (SimConfig,
 * read from the plain file tools/sim/amcast-sim writes from a testbed scenario), and the
 * applications that run in the simulated network.
 *
 * Contract: the video applications drive lib/cc only through amcc/controller.h, exactly the
 * calls the elements make (gst/common/gstamcc.c, gstamccrx.c); they never reach into a
 * protocol. Every trace they write has the format of docs/run-directory.md, times on the
 * scenario's clock t0 + simulated time, so tools/testbed's analysis and evalvid-run read a
 * simulated run like a testbed run. */
#ifndef AMCAST_SIM_H
#define AMCAST_SIM_H
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/socket.h"

extern "C" {
#include <amcc/avmrc.h>
#include <amcc/controller.h>
}

struct SimLink {
  std::string a, b;
  double rate_bps[2];         /* a->b, b->a; 0 = not shaped */
  uint64_t queue_bytes[2];    /* drop-tail queue on each sending end, bytes */
  double delay_ms[2];
  double loss_pct[2];
};

struct SimReceiver {
  std::string name, host;
  double join_s, leave_s;
  bool trace = true;          /* writes rd.txt and stats.csv (a [[receivers]] group traces a few) */
};

struct SimFlow {
  std::string name, kind, src, dst, cc;
  double rate_bps;
  uint16_t port;
  std::vector<std::pair<double, double>> on;   /* on-periods, scenario seconds */
  uint32_t window = 0;                         /* TCP: at most this many bytes in flight; 0: no cap */
};

/* one stream of a simulcast (ASSP) ladder, lowest first: the sender's limits */
struct SimStream {
  double min_bps, max_bps;
};

/* a layered session (AVMRC/RMRC/VMRC, avmrc.cc): the [layers] section, the paper's synthetic
 * workload; channels 0 = not layered */
struct SimLayers {
  uint32_t channels = 0;
  double b1_bps = 256000, factor = 1.5, period_ms = 100;
  uint32_t packet_size = 1000;        /* RTP packet as avmrcsynth makes it (the stamp adds 24) */
  double steady_s = 0;                /* the receivers' {"mark": stats} (the steady window) */
  /* unsynchronised slots (papers/003 3.3's comparison): each receiver takes every n_add-th slot
   * from its own random phase as its add slot instead of the server's flag */
  bool unsync = false;
};

struct SimConfig {
  double duration_s = 0, t0 = 0;
  uint64_t seed = 1;
  std::string protocol, group = "239.1.2.3", sender;
  uint16_t port = 5004;
  /* [video] */
  double fps = 25, initial_bps = 500000, min_bps = 50000, max_bps = 4000000;
  uint32_t key_int = 25, rtcp_ms = 1000;
  /* the IGMP model: a route appears this long after a join, goes this long after a leave */
  double join_latency_s = 0.005, leave_latency_s = 2.0;
  /* simulcast (ASSP, assp.cc): stream k on group + k, RTP port + 2k, RTCP port + 2k + 1 (as
   * amcast-node); empty = one stream on group/port */
  std::vector<SimStream> streams;
  double knee_hold_s = -1;    /* ASSP receivers' knee_hold (lib/cc/README.md), -1 = lib/cc's */
  /* layer k on group + k, port + 2k, as amcast-layered-node */
  SimLayers layers;
  /* the delay line's own extra delay on delayed links (amcast-sim.cc, DelayLineChannel) */
  double delay_jitter_ms = 0.2;
  std::vector<std::pair<std::string, bool>> nodes;  /* name, is a router */
  std::vector<SimLink> links;
  std::vector<SimReceiver> receivers;
  std::vector<SimFlow> flows;
};

/* How many groups the session has: streams, layers, or 1. */
inline uint32_t
sim_groups (const SimConfig &cfg)
{
  return cfg.layers.channels ? cfg.layers.channels
      : (uint32_t) std::max<size_t> (1, cfg.streams.size ());
}

/* Stream k's group and RTP port (k = 0 for a single-stream session). */
ns3::Ipv4Address sim_group (const SimConfig &cfg, uint32_t k);
inline uint16_t
sim_port (const SimConfig &cfg, uint32_t k)
{
  return (uint16_t) (cfg.port + 2 * k);
}

/* Parses the file; on error prints "amcast-sim: FILE:LINE: ..." and returns false. */
bool sim_config_read (const char *path, SimConfig &cfg);

/* amcc time (ns) of the scenario clock: t0 + simulated time, as the elements' CLOCK_REALTIME. */
amcc_time sim_now (const SimConfig &cfg);
/* The same in seconds, as the traces print it. */
double sim_wall (const SimConfig &cfg);

/* ---- the video session (video.cc) ---- */
/* Packets carry these headers of this program (not RTP/RTCP bytes) padded to the size the real
 * packet has on the wire. */
static const uint32_t MAGIC_RTP = 0x414d5254, MAGIC_RTCP = 0x414d5243;
enum { T_SR = 200, T_RR = 201, T_BYE = 203, T_PLI = 206 };
static const uint32_t RTCP_MTU = 1400;
static const uint32_t SDES_BYTES = 20;        /* SDES with a CNAME in every compound packet */

struct RtpHdr {
  uint32_t magic, ssrc, extseq, rtp_ts, frame;
  uint32_t key_start;                 /* first packet of a key frame (asspsrc switches there) */
  int64_t send_time;
};

struct RtcpHdr {
  uint32_t magic;
  uint8_t type, has_block, has_app, subtype;
  uint32_t ssrc, ntp_mid32;
  uint32_t about, lsr, dlsr;        /* one report block (a PLI: about = the media SSRC) */
  char name[4];
  uint32_t app_len;
};

ns3::Ptr<ns3::Packet> sim_packet (const void *hdr, size_t hlen, const uint8_t *extra, size_t elen,
    uint32_t wire);
uint32_t sim_rtcp_bytes (const RtcpHdr &h);
ns3::Ptr<ns3::Socket> sim_udp_socket (ns3::Ptr<ns3::Node> node, uint16_t port,
    ns3::Callback<void, ns3::Ptr<ns3::Socket>> recv);
/* A receive callback for a socket that only sends: reads and drops what arrives. */
void sim_drain (ns3::Ptr<ns3::Socket> s);
uint32_t sim_ntp_mid32 (const SimConfig &cfg);

/* One RTCP timer as rtpsession runs it (RFC 3550 6.3): deterministic interval from the session
 * bandwidth and group size with the configured minimum, randomised over [0.5, 1.5] and divided
 * by e - 3/2; the first one after half the minimum. */
struct RtcpTimer {
  double min_s = 1.0;
  double td = 0;              /* the last deterministic interval (with the minimum), seconds */
  bool first = true;
  ns3::Ptr<ns3::UniformRandomVariable> u;
  double next_interval (double session_bps, uint32_t members, bool is_sender, uint32_t senders,
      double avg_rtcp_bytes);
};

class VideoSender : public ns3::Application {
 public:
  /* stream < 0: the single-stream session ([video]'s limits, RUN/sender/); else stream k of
   * cfg.streams (its group, ports and limits, starting at its lower limit; RUN/sender/streamK/) */
  VideoSender (const SimConfig &cfg, const amcc_protocol *proto, const std::string &run_dir,
      int stream = -1);
  ~VideoSender () override;
  amcc_sender *controller () { return cc_; }
  uint64_t packets_sent = 0, key_requests = 0, key_forwarded = 0;
  uint64_t rtcp_in = 0, app_taken = 0, app_bad = 0;
  /* feedback as the sender hears it: receiver reports (RR, not BYE) and those with an APP, per
   * simulated second; per receiver SSRC: reports, first and last, longest gap between two */
  std::vector<uint32_t> fb_per_s, fb_app_per_s;
  struct Heard { uint64_t n = 0; double first = 0, last = 0, max_gap = 0; };
  std::unordered_map<uint32_t, Heard> heard;

 private:
  void StartApplication () override;
  void StopApplication () override;
  void NextFrame ();
  void Pace ();
  void SendRtcp (bool early);
  void ScheduleEarly ();
  void OnRtcp (ns3::Ptr<ns3::Socket> s);

  const SimConfig &cfg_;
  amcc_sender *cc_ = nullptr;
  ns3::Ipv4Address group_;
  uint16_t port_;
  ns3::Ptr<ns3::Socket> rtp_, rtcp_;
  uint32_t ssrc_;
  uint32_t seq_ = 0, frame_ = 0, since_key_ = 0;
  bool force_key_ = false;            /* a PLI asked for a key frame (asspsimulcast) */
  ns3::Time key_at_;
  double gop_bps_ = 0;
  struct Queued { uint32_t size, frame; char type; uint32_t rtp_ts; };
  std::vector<Queued> queue_;
  size_t queue_head_ = 0;
  ns3::Time next_slot_;
  ns3::EventId pace_ev_, early_ev_, rtcp_ev_;
  ns3::Time last_rtcp_;
  RtcpTimer timer_;
  ns3::Ptr<ns3::UniformRandomVariable> jitter_;
  FILE *sd_ = nullptr, *rate_ = nullptr;
  uint64_t bytes_ = 0, bytes_at_row_ = 0;
  double row_time_ = 0;
};

/* What the two receivers share (assp.cc): lib/cc's receiver, the report timer (RFC 3550 forward
 * reconsideration, lib/cc's early reports at most every EARLY_GAP) and one stats.csv row per
 * report. A subclass builds and sends the reports (SendRtcp) and says which members and session
 * bandwidth the interval is from (Interval). */
class RtcpReceiver : public ns3::Application {
 public:
  uint64_t packets = 0, reports_sent = 0;

 protected:
  using Peers = std::unordered_map<uint32_t, ns3::Time>;    /* SSRCs heard in RTCP, last heard */
  RtcpReceiver (const SimConfig &cfg, const amcc_protocol *proto, const SimReceiver &rx,
      uint32_t ssrc);
  ~RtcpReceiver () override;
  virtual void SendRtcp (bool early) = 0;
  virtual double Interval () = 0;
  static FILE *OpenStats (const std::string &path);
  void NewController ();
  void StartTimer (double session_bps);
  void StopTimers ();
  bool Reconsider (bool early);
  void Measure (FILE *rd, const RtpHdr &h, uint32_t bytes, bool feed);
  bool TakeRtcp (ns3::Ptr<ns3::Packet> p, RtcpHdr &h, std::vector<uint8_t> &all) const;
  void OnSenderReport (const RtcpHdr &h, const Peers &peers);
  void OnApp (const RtcpHdr &h, const std::vector<uint8_t> &all);
  double NextInterval (double fallback_bps, Peers &peers);
  void FillReport (RtcpHdr &h, uint8_t *payload, bool block, uint32_t about, uint32_t lsr,
      ns3::Time sr_arrival);
  void Reported (bool early, FILE *stats);
  void ScheduleEarly ();

  const SimConfig &cfg_;
  const amcc_protocol *proto_;
  SimReceiver rx_;
  amcc_receiver *cc_ = nullptr;
  uint32_t ssrc_;
  ns3::EventId rtcp_ev_, early_ev_;
  ns3::Time last_rtcp_;
  RtcpTimer timer_;
  double sender_bps_ = 0;
  uint64_t bytes_ = 0, bytes_at_row_ = 0;
  double row_time_ = 0;
};

class VideoReceiver : public RtcpReceiver {
 public:
  VideoReceiver (const SimConfig &cfg, const amcc_protocol *proto, const SimReceiver &rx,
      uint32_t ssrc, const std::string &run_dir);
  ~VideoReceiver () override;
  uint64_t rtcp_in = 0;

 private:
  void StartApplication () override;
  void StopApplication () override;
  void OnRtp (ns3::Ptr<ns3::Socket> s);
  void OnRtcp (ns3::Ptr<ns3::Socket> s);
  void SendRtcp (bool early) override;
  void Send (RtcpHdr &h, const uint8_t *payload);
  double Interval () override;

  ns3::Ptr<ns3::Socket> rtp_, rtcp_;
  uint32_t sender_ssrc_ = 0, lsr_ = 0;
  ns3::Time sr_arrival_;
  bool have_sr_ = false;
  Peers peers_;
  FILE *rd_ = nullptr, *stats_ = nullptr;
};

/* ---- simulcast (assp.cc) ---- */
/* An ASSP receiver as asspsrc runs one: starts on stream 0; when lib/cc wants another stream it
 * joins that group ahead, asks its sender for a key frame (PLI) at its first packet, switches
 * at the first key frame (amcc_receiver_set_stream), says BYE on the old session and leaves
 * its group. Traces: rx-NAME/streamK/{rd.txt,stats.csv}, rx-NAME/switches.csv. */
class AsspReceiver : public RtcpReceiver {
 public:
  /* the IGMP model: after after_s, host's membership of stream's group changes by delta */
  using Membership = std::function<void (const std::string &host, uint32_t stream, int delta,
      double after_s)>;
  AsspReceiver (const SimConfig &cfg, const amcc_protocol *proto, const SimReceiver &rx,
      uint32_t ssrc, const std::string &run_dir, Membership igmp);
  ~AsspReceiver () override;
  uint64_t switches = 0;
  /* packets of a stream not joined that still reached the host: after a leave (the IGMP
   * model's leave latency; the longest time after it) and of a stream never joined */
  uint64_t stray = 0, stray_never = 0;
  double stray_after_leave_s = 0;

 private:
  struct Stream {                     /* one stream's session as this receiver sees it */
    ns3::Ptr<ns3::Socket> rtp, rtcp;
    bool joined = false;
    double left_s = -1;               /* simulated time of the last leave, -1 never */
    uint32_t sender_ssrc = 0, lsr = 0;
    ns3::Time sr_arrival;
    Peers peers;
    FILE *rd = nullptr, *stats = nullptr;
  };
  void StartApplication () override;
  void StopApplication () override;
  void OnRtp (ns3::Ptr<ns3::Socket> s);
  void OnRtcp (ns3::Ptr<ns3::Socket> s);
  void Join (uint32_t k);
  void Leave (uint32_t k);
  void Follow (uint32_t k, const RtpHdr &h);
  void SendRtcp (bool early) override;
  void SendTo (uint32_t k, RtcpHdr &h, const uint8_t *payload);
  double Interval () override;
  int StreamOf (ns3::Ptr<ns3::Socket> s, bool rtcp) const;

  std::string dir_;
  Membership igmp_;
  std::vector<Stream> st_;
  uint32_t on_ = 0;
  int joining_ = -1;                  /* the stream joined ahead, -1 none */
  bool key_asked_ = false;
  ns3::Time decided_at_;
  FILE *switches_ = nullptr;
};

/* ---- competing flows (flows.cc) ---- */
/* A flow's sink: counts payload bytes and writes flows/NAME.csv (time_s,bytes) every second. */
class FlowSink : public ns3::Application {
 public:
  FlowSink (const SimConfig &cfg, bool tcp, uint16_t port, const std::string &csv_path);
  ~FlowSink () override;

 private:
  void StartApplication () override;
  void StopApplication () override;
  void OnAccept (ns3::Ptr<ns3::Socket> s, const ns3::Address &from);
  void OnRecv (ns3::Ptr<ns3::Socket> s);
  void Row ();

  const SimConfig &cfg_;
  bool tcp_;
  uint16_t port_;
  ns3::Ptr<ns3::Socket> listen_;
  std::vector<ns3::Ptr<ns3::Socket>> conns_;
  FILE *csv_ = nullptr;
  uint64_t bytes_ = 0;
  double next_row_ = 1.0;
};

/* Bulk TCP (one connection per on-period, NewReno or CUBIC) or paced UDP (1200-byte datagrams
 * at rate_bps while on), as flowgen.py does in the testbed. */
class FlowSource : public ns3::Application {
 public:
  FlowSource (const SimFlow &f, ns3::Ipv4Address dst);

 private:
  void StartApplication () override;
  void StopApplication () override;
  void Begin (double until_s);
  void End ();
  void FillTcp (ns3::Ptr<ns3::Socket> s, uint32_t avail);
  void OnCwnd (uint32_t, uint32_t cwnd) { cwnd_ = cwnd; }
  void SendUdp ();

  SimFlow f_;
  uint32_t cwnd_ = 0;
  ns3::Ipv4Address dst_;
  ns3::Ptr<ns3::Socket> sock_;
  ns3::EventId ev_;
  bool on_ = false;
};
/* ---- layered sessions (avmrc.cc) ---- */
/* The paper's synthetic server as avmrcsynth + avmrclayers (pacing off) run it: every period
 * each channel's credit (its rate x period) leaves as whole packet_size packets in one burst,
 * channel after channel, each packet stamped (amcc_avmrc_stamp: send time, slot, add flag,
 * layer) on its layer's group. Trace: sender/sd.txt with the layer column. */
class LayeredSender : public ns3::Application {
 public:
  LayeredSender (const SimConfig &cfg, const std::string &run_dir);
  ~LayeredSender () override;
  uint64_t packets_sent = 0;

 private:
  void StartApplication () override;
  void StopApplication () override;
  void Burst ();

  const SimConfig &cfg_;
  std::vector<double> rate_, credit_;     /* per channel, bit/s and bytes */
  std::vector<uint16_t> seq_;
  std::vector<uint32_t> ssrc_;
  amcc_avmrc_clock clock_;
  ns3::Ptr<ns3::Socket> sock_;
  ns3::EventId ev_;
  uint32_t frame_ = 0;
  FILE *sd_ = nullptr;
};

/* A receiver as avmrcsrc runs one: takes layer 1 at its start, hands lib/cc every packet of the
 * layers it holds (with the stamp), joins and leaves groups as amcc_receiver_wanted_layers says
 * (the IGMP model's latencies), drops what arrives of a layer it left. Writes rx-NAME/rd.txt and
 * logs/rx-NAME.log: the JSON lines amcast-layered-node prints ({"layers"}, {"mark"},
 * {"result"}), which tools/testbed's layered.py evaluates. */
class LayeredReceiver : public ns3::Application {
 public:
  using Membership = AsspReceiver::Membership;
  LayeredReceiver (const SimConfig &cfg, const amcc_protocol *proto, const SimReceiver &rx,
      const std::string &run_dir, Membership igmp);
  ~LayeredReceiver () override;
  uint64_t packets = 0, changes = 0, after_leave = 0;
  uint32_t wanted = 0;

 private:
  struct Layer {
    ns3::Ptr<ns3::Socket> sock;
    amcc_seq seq;
    uint64_t packets = 0, bytes = 0;
    int64_t lost_before = 0;          /* lost in the sequence spaces before the last change */
  };
  void StartApplication () override;
  void StopApplication () override;
  void OnPacket (ns3::Ptr<ns3::Socket> s);
  void Apply (uint32_t to);
  void Mark ();
  std::string Stats ();

  const SimConfig &cfg_;
  const amcc_protocol *proto_;
  SimReceiver rx_;
  Membership igmp_;
  amcc_receiver *cc_ = nullptr;
  std::vector<Layer> lay_;
  FILE *rd_ = nullptr, *log_ = nullptr;
  ns3::EventId mark_ev_;
  uint32_t n_add_ = 1, phase_ = 0;    /* unsynchronised slots: this receiver's add slots */
};

#endif
