/* video.cc - the multicast video session in ns-3: a sender with a packet-size model of a video
 * encoder, receivers, and an RTCP model, all driving lib/cc through amcc/controller.h with the
 * calls gst/common/gstamcc.c and gstamccrx.c make (docs/sim.md says what is modelled).
 *
 * Packets carry a small binary header of this program (not RTP/RTCP bytes: nothing here parses
 * real RTCP) padded to the size the real packet would have on the wire, so queues and links see
 * the right bytes. */
#include <cmath>
#include <cstring>

#include "ns3/fatal-error.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "sim.h"

extern "C" {
#include <amcc/pacing.h>
#include <amcc/rtcp_app.h>
#include <amcc/rtt.h>
}

using namespace ns3;

/* ---- the packet-size model ----
 * Measured on the testbed's source (amcast-node's source_desc) through x264enc tune=zerolatency
 * speed-preset=ultrafast key-int-max=25 at 600 kbit/s, rtph264pay mtu=1200 config-interval=-1,
 * 500 frames: key frames 5.0 x the mean P frame, P frames' CoV 0.15 (0.57-1.47 x the mean);
 * every frame starts with a 14-byte access unit delimiter packet and every key frame carries
 * SPS (39 B) and PPS (16 B) packets, so the mean RTP packet was 721 B (741 B with the 20 bytes
 * of header extensions; 739 B in the testbed's fairness-l1 run). */
static const uint32_t RTP_MTU = 1200;         /* rtph264pay mtu: RTP header + payload */
static const uint32_t RTP_HEADER = 12;
static const uint32_t FU_HEADER = 2;          /* FU-A indicator + header of each fragment */
static const uint32_t EXT_BYTES = 20;         /* the elements' two header extensions */
static const uint32_t AUD_NAL = 2, SPS_NAL = 27, PPS_NAL = 4;
static const double KEY_FRAME_WEIGHT = 5.0;   /* key frame = 5 mean P frames */
static const double P_FRAME_SPREAD = 0.3;     /* P frames uniform in [0.7, 1.3] x mean: CoV 0.17 */
/* the elements' pacer: factor 1.5 over the target, 10 ms slots (docs/elements.md, Pacing) */
static const double PACING_FACTOR = 1.5;
static const Time PACING_SLOT = MilliSeconds (10);
/* an early RTCP packet (RFC 4585) at most this often, as asmpsrc asks for one */
static const Time EARLY_GAP = MilliSeconds (50);
/* asspsimulcast's key-interval: one PLI per stream per second reaches the encoder */
static const Time KEY_REQUEST_INTERVAL = Seconds (1);

Ptr<Packet>
sim_packet (const void *hdr, size_t hlen, const uint8_t *extra, size_t elen, uint32_t wire)
{
  std::vector<uint8_t> buf (std::max<size_t> (wire, hlen + elen), 0);
  memcpy (buf.data (), hdr, hlen);
  if (elen)
    memcpy (buf.data () + hlen, extra, elen);
  return Create<Packet> (buf.data (), buf.size ());
}

/* RTCP compound size on the wire (UDP payload): SR 28 or RR 8, a report block 24, SDES, APP */
uint32_t
sim_rtcp_bytes (const RtcpHdr &h)
{
  uint32_t n = (h.type == T_SR ? 28 : 8) + (h.has_block ? 24 : 0) + SDES_BYTES;
  if (h.has_app)
    n += 12 + h.app_len;
  if (h.type == T_BYE)
    n = 8 + 8 + SDES_BYTES;
  if (h.type == T_PLI)                /* RR, SDES, PSFB PLI (RFC 4585 6.3.1) */
    n = 8 + SDES_BYTES + 12;
  return n;
}

uint32_t
sim_ntp_mid32 (const SimConfig &cfg)
{
  return amcc_ntp_mid32 (amcc_ntp64_from_unix (sim_now (cfg)));
}

Ptr<Socket>
sim_udp_socket (Ptr<Node> node, uint16_t port, Callback<void, Ptr<Socket>> recv)
{
  Ptr<Socket> s = Socket::CreateSocket (node, UdpSocketFactory::GetTypeId ());
  s->Bind (InetSocketAddress (Ipv4Address::GetAny (), port));
  s->SetRecvCallback (recv);
  return s;
}

/* ---- RTCP timing (RFC 3550 6.3 and A.7, as rtpsession computes it) ---- */
double
RtcpTimer::next_interval (double session_bps, uint32_t members, bool is_sender,
    uint32_t senders, double avg_rtcp_bytes)
{
  double bw = 0.05 * session_bps / 8, n = members;
  if (senders <= members / 4.0) {
    bw *= is_sender ? 0.25 : 0.75;
    n = is_sender ? senders : members - senders;
  }
  double t = bw > 0 ? avg_rtcp_bytes * n / bw : 0;
  double tmin = first ? min_s / 2 : min_s;
  t = std::max (t, tmin);
  td = std::max (t, min_s);
  return t * u->GetValue (0.5, 1.5) / (M_E - 1.5);
}

/* ======================= sender ======================= */
VideoSender::VideoSender (const SimConfig &cfg, const amcc_protocol *proto,
    const std::string &run_dir, int stream) : cfg_ (cfg)
{
  uint32_t k = stream < 0 ? 0 : (uint32_t) stream;
  group_ = sim_group (cfg, k);
  port_ = sim_port (cfg, k);
  since_key_ = cfg.key_int;           /* the first frame is a key frame */
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.initial_bps = stream < 0 ? cfg.initial_bps : cfg.streams[k].min_bps;
  c.min_bps = stream < 0 ? cfg.min_bps : cfg.streams[k].min_bps;
  c.max_bps = stream < 0 ? cfg.max_bps : cfg.streams[k].max_bps;
  c.rtcp_interval = (amcc_time) cfg.rtcp_ms * AMCC_NS_PER_MS;
  c.seed = cfg.seed * 0x9e3779b97f4a7c15ULL + 1 + k;
  c.proofs = 1;                       /* as asmpsink: a report counts once it echoed our SR */
  jitter_ = CreateObject<UniformRandomVariable> ();
  timer_.u = CreateObject<UniformRandomVariable> ();
  timer_.min_s = cfg.rtcp_ms / 1000.0;
  ssrc_ = (uint32_t) jitter_->GetInteger (1, 0xfffffffe);
  c.ssrc = ssrc_;
  cc_ = amcc_sender_new (proto, &c, sim_now (cfg));
  if (!cc_)
    NS_FATAL_ERROR ("amcc_sender_new refused the [video] rates (initial " << cfg.initial_bps
        << ", min " << cfg.min_bps << ", max " << cfg.max_bps << " bit/s)");
  gop_bps_ = c.initial_bps;
  std::string dir = run_dir + "/sender" + (stream < 0 ? "" : "/stream" + std::to_string (k));
  sd_ = fopen ((dir + "/sd.txt").c_str (), "w");
  rate_ = fopen ((dir + "/rate.csv").c_str (), "w");
  if (rate_)
    fprintf (rate_, "time_s,target_bps,sent_bps,receivers,min_receiver_bps,protocol\n");
}

VideoSender::~VideoSender ()
{
  if (cc_)
    amcc_sender_free (cc_);
  if (sd_)
    fclose (sd_);
  if (rate_)
    fclose (rate_);
}

void
VideoSender::StartApplication ()
{
  rtp_ = sim_udp_socket (GetNode (), 0, MakeCallback (&sim_drain));
  rtcp_ = sim_udp_socket (GetNode (), port_ + 1, MakeCallback (&VideoSender::OnRtcp, this));
  row_time_ = sim_wall (cfg_);
  last_rtcp_ = Simulator::Now ();
  NextFrame ();
  rtcp_ev_ = Simulator::Schedule (Seconds (timer_.next_interval (gop_bps_, 1, true, 1, 100)),
      &VideoSender::SendRtcp, this, false);
}

void
VideoSender::StopApplication ()
{
  Simulator::Cancel (pace_ev_);
  Simulator::Cancel (early_ev_);
  Simulator::Cancel (rtcp_ev_);
  if (rtp_)
    rtp_->Close ();
  if (rtcp_)
    rtcp_->Close ();
  if (sd_)
    fflush (sd_);
  if (rate_)
    fflush (rate_);
}

void
sim_drain (Ptr<Socket> s)
{
  while (s->Recv ()) {
  }
}

/* One frame of the video: its size follows the target the controller gave at the GOP's key
 * frame (the elements set the encoder once per GOP); the frame is cut into RTP packets as
 * rtph264pay cuts x264's output and queued for the pacer. */
void
VideoSender::NextFrame ()
{
  amcc_time now = sim_now (cfg_);
  /* x264 restarts its GOP at a forced key frame */
  bool key = force_key_ || since_key_ >= cfg_.key_int;
  since_key_ = key ? 1 : since_key_ + 1;
  force_key_ = false;
  if (key)
    gop_bps_ = amcc_sender_rate (cc_, now);
  double gop_bytes = gop_bps_ * cfg_.key_int / cfg_.fps / 8;
  double unit = gop_bytes / (KEY_FRAME_WEIGHT + cfg_.key_int - 1);
  double size = key ? KEY_FRAME_WEIGHT * unit
      : unit * jitter_->GetValue (1 - P_FRAME_SPREAD, 1 + P_FRAME_SPREAD);
  uint32_t left = std::max<uint32_t> (1, (uint32_t) std::lround (size));
  uint32_t ts = (uint32_t) std::llround (frame_ * 90000.0 / cfg_.fps);
  char type = key ? 'I' : 'P';
  /* x264enc's access unit delimiter, then (key frames) SPS and PPS, each a packet of its own */
  queue_.push_back ({RTP_HEADER + AUD_NAL + EXT_BYTES, frame_, key ? 'K' : type, ts});
  if (key) {
    queue_.push_back ({RTP_HEADER + SPS_NAL + EXT_BYTES, frame_, type, ts});
    queue_.push_back ({RTP_HEADER + PPS_NAL + EXT_BYTES, frame_, type, ts});
  }
  uint32_t room = RTP_MTU - RTP_HEADER - FU_HEADER;
  while (left > 0) {            /* FU-A: full fragments, then the rest */
    uint32_t pay = std::min (left, room);
    queue_.push_back ({pay + RTP_HEADER + FU_HEADER + EXT_BYTES, frame_, type, ts});
    left -= pay;
  }
  frame_++;
  Simulator::Schedule (Seconds (1.0 / cfg_.fps), &VideoSender::NextFrame, this);
  if (!pace_ev_.IsRunning ())
    Pace ();
}

/* The elements' pacer: a packet of s bytes is followed by the next no sooner than
 * 8 s / (1.5 x target) later; a packet whose slot is at most 10 ms ahead leaves now and keeps
 * its slot. */
void
VideoSender::Pace ()
{
  Time now = Simulator::Now ();
  while (queue_head_ < queue_.size ()) {
    if (next_slot_ > now + PACING_SLOT) {
      pace_ev_ = Simulator::Schedule (next_slot_ - PACING_SLOT - now, &VideoSender::Pace, this);
      return;
    }
    const Queued &q = queue_[queue_head_++];
    amcc_time t = sim_now (cfg_);
    RtpHdr h = {MAGIC_RTP, ssrc_, seq_, q.rtp_ts, q.frame, q.type == 'K', t};
    rtp_->SendTo (sim_packet (&h, sizeof h, nullptr, 0, q.size), 0,
        InetSocketAddress (group_, port_));
    if (sd_)
      fprintf (sd_, "%.6f id %llu udp %u %u %c\n", sim_wall (cfg_),
          (unsigned long long) (((uint64_t) ssrc_ << 32) | seq_), q.size, q.frame,
          q.type == 'K' ? 'I' : q.type);
    amcc_sender_on_rtp_sent (cc_, t, q.size);
    seq_++;
    packets_sent++;
    bytes_ += q.size;
    double rate = amcc_sender_last_rate (cc_);
    next_slot_ = std::max (next_slot_, now)
        + NanoSeconds (amcc_pacing_interval (q.size, rate, PACING_FACTOR));
  }
  queue_.clear ();
  queue_head_ = 0;
}

/* An SR (regular or, for the protocol's early_due, early) with the APP payload lib/cc gives. */
void
VideoSender::SendRtcp (bool early)
{
  amcc_time now = sim_now (cfg_);
  RtcpHdr h = {};
  h.magic = MAGIC_RTCP;
  h.type = T_SR;
  h.ssrc = ssrc_;
  h.ntp_mid32 = sim_ntp_mid32 (cfg_);
  amcc_sender_on_sr_sent (cc_, now, h.ntp_mid32);
  uint8_t payload[RTCP_MTU];
  amcc_app app;
  size_t room = RTCP_MTU - 28 - SDES_BYTES - 12;
  if (amcc_sender_next_app (cc_, now, payload, room, &app) == 1) {
    h.has_app = 1;
    memcpy (h.name, app.name, 4);
    h.subtype = app.subtype;
    h.app_len = (uint32_t) app.len;
  }
  rtcp_->SendTo (sim_packet (&h, sizeof h, payload, h.has_app ? h.app_len : 0,
          sim_rtcp_bytes (h)),
      0, InetSocketAddress (group_, port_ + 1));
  /* rate.csv: one row per RTCP packet, as asmpsink's stats message */
  double target = amcc_sender_rate (cc_, now);
  amcc_sender_stats st;
  amcc_sender_get_stats (cc_, now, &st);
  double t = sim_wall (cfg_);
  if (rate_)
    fprintf (rate_, "%.6f,%u,%.0f,%u,%.0f,%s\n", t, (unsigned) target,
        t > row_time_ ? 8.0 * (bytes_ - bytes_at_row_) / (t - row_time_) : 0.0, st.receivers,
        st.have_slowest ? st.slowest_rate_bps : 0.0, cfg_.protocol.c_str ());
  row_time_ = t;
  bytes_at_row_ = bytes_;
  last_rtcp_ = Simulator::Now ();
  timer_.first = false;
  /* the receivers' interval (RFC 3550 6.3.5: members time out after several of them) */
  amcc_sender_set_rtcp_interval (cc_, now, (amcc_time) (amcc_rtcp_interval_det (st.receivers + 1,
          1, 0.05 * target / 8, 0, 100, timer_.min_s, 0) * AMCC_NS_PER_S));
  if (!early)
    rtcp_ev_ = Simulator::Schedule (Seconds (timer_.next_interval (target, st.receivers + 1,
                true, 1, 100)), &VideoSender::SendRtcp, this, false);
  ScheduleEarly ();
}

void
VideoSender::ScheduleEarly ()
{
  amcc_time now = sim_now (cfg_);
  amcc_time due = amcc_sender_early_due (cc_, now);
  Simulator::Cancel (early_ev_);
  if (due == AMCC_TIME_NONE)
    return;
  Time at = std::max (NanoSeconds (std::max<amcc_time> (due - now, 0)),
      last_rtcp_ + EARLY_GAP - Simulator::Now ());
  early_ev_ = Simulator::Schedule (at, &VideoSender::SendRtcp, this, true);
}

void
VideoSender::OnRtcp (Ptr<Socket> s)
{
  Ptr<Packet> p;
  while ((p = s->Recv ())) {
    RtcpHdr h;
    uint8_t payload[RTCP_MTU];
    if (p->GetSize () < sizeof h)
      continue;
    p->CopyData ((uint8_t *) &h, sizeof h);
    if (h.magic != MAGIC_RTCP || h.ssrc == ssrc_ || h.app_len > sizeof payload
        || p->GetSize () < sizeof h + h.app_len)
      continue;
    std::vector<uint8_t> all (p->GetSize ());
    p->CopyData (all.data (), all.size ());
    memcpy (payload, all.data () + sizeof h, h.app_len);
    amcc_time now = sim_now (cfg_);
    rtcp_in++;
    if (h.type == T_BYE) {
      amcc_sender_on_bye (cc_, now, h.ssrc);
      continue;
    }
    if (h.type == T_PLI) {            /* ours: one per KEY_REQUEST_INTERVAL reaches the encoder */
      key_requests += h.about == ssrc_;
      if (h.about == ssrc_ && (!key_forwarded || Simulator::Now () - key_at_
              >= KEY_REQUEST_INTERVAL)) {
        force_key_ = true;
        key_at_ = Simulator::Now ();
        key_forwarded++;
      }
      continue;
    }
    if (h.type == T_RR) {
      double t = Simulator::Now ().GetSeconds ();
      size_t sec = (size_t) t;
      if (fb_per_s.size () <= sec) {
        fb_per_s.resize (sec + 1, 0);
        fb_app_per_s.resize (sec + 1, 0);
      }
      fb_per_s[sec]++;
      fb_app_per_s[sec] += h.has_app ? 1 : 0;
      Heard &hd = heard[h.ssrc];
      if (hd.n++ == 0)
        hd.first = t;
      else
        hd.max_gap = std::max (hd.max_gap, t - hd.last);
      hd.last = t;
    }
    if (h.has_block)
      amcc_sender_on_report_block (cc_, now, h.ssrc, h.about, h.lsr, h.dlsr,
          sim_ntp_mid32 (cfg_));
    if (h.has_app) {
      amcc_app_result r = amcc_sender_on_app (cc_, now, h.ssrc, h.name, h.subtype, payload,
          h.app_len);
      if (r == AMCC_APP_TAKEN)
        app_taken++;
      else if (r == AMCC_APP_MALFORMED)
        app_bad++;
    }
    amcc_sender_rate (cc_, now);      /* the target follows the reports (pacing uses it) */
  }
  ScheduleEarly ();
}

/* ======================= receiver ======================= */
/* its RTCP plumbing, shared with the simulcast receiver: RtcpReceiver (assp.cc) */
VideoReceiver::VideoReceiver (const SimConfig &cfg, const amcc_protocol *proto,
    const SimReceiver &rx, uint32_t ssrc, const std::string &run_dir)
  : RtcpReceiver (cfg, proto, rx, ssrc)
{
  std::string dir = run_dir + "/rx-" + rx.name;
  if (rx.trace) {
    rd_ = fopen ((dir + "/rd.txt").c_str (), "w");
    stats_ = OpenStats (dir + "/stats.csv");
  }
}

VideoReceiver::~VideoReceiver ()
{
  if (rd_)
    fclose (rd_);
  if (stats_)
    fclose (stats_);
}

void
VideoReceiver::StartApplication ()
{
  NewController ();
  rtp_ = sim_udp_socket (GetNode (), cfg_.port, MakeCallback (&VideoReceiver::OnRtp, this));
  rtcp_ = sim_udp_socket (GetNode (), cfg_.port + 1, MakeCallback (&VideoReceiver::OnRtcp, this));
  StartTimer (cfg_.initial_bps);
}

void
VideoReceiver::StopApplication ()
{
  if (!cc_)
    return;                           /* its join fell after the run's end: it never started */
  StopTimers ();
  RtcpHdr bye = {};                   /* rtpsession sends a BYE when the element stops */
  bye.type = T_BYE;
  Send (bye, nullptr);
  rtp_->Close ();
  rtcp_->Close ();
  if (rd_)
    fflush (rd_);
  if (stats_)
    fflush (stats_);
}

void
VideoReceiver::OnRtp (Ptr<Socket> s)
{
  Ptr<Packet> p;
  while ((p = s->Recv ())) {
    RtpHdr h;
    if (p->GetSize () < sizeof h)
      continue;
    p->CopyData ((uint8_t *) &h, sizeof h);
    if (h.magic == MAGIC_RTP)
      Measure (rd_, h, p->GetSize (), true);
  }
  ScheduleEarly ();
}

void
VideoReceiver::OnRtcp (Ptr<Socket> s)
{
  Ptr<Packet> p;
  Time tnow = Simulator::Now ();
  std::vector<uint8_t> all;
  while ((p = s->Recv ())) {
    RtcpHdr h;
    if (!TakeRtcp (p, h, all))
      continue;
    rtcp_in++;
    if (h.type == T_BYE) {            /* RFC 3550 6.3.7: a BYE takes the member out */
      peers_.erase (h.ssrc);
      continue;
    }
    peers_[h.ssrc] = tnow;
    if (h.type == T_SR) {
      sender_ssrc_ = h.ssrc;
      lsr_ = h.ntp_mid32;
      sr_arrival_ = tnow;
      have_sr_ = true;
      OnSenderReport (h, peers_);
    }
    OnApp (h, all);
  }
  ScheduleEarly ();
}

double
VideoReceiver::Interval ()
{
  return NextInterval (cfg_.initial_bps, peers_);
}

void
VideoReceiver::Send (RtcpHdr &h, const uint8_t *payload)
{
  h.magic = MAGIC_RTCP;
  h.ssrc = ssrc_;
  rtcp_->SendTo (sim_packet (&h, sizeof h, payload, h.has_app ? h.app_len : 0,
          sim_rtcp_bytes (h)),
      0, InetSocketAddress (Ipv4Address (cfg_.group.c_str ()), cfg_.port + 1));
}

/* An RR about the sender with lib/cc's APP (a BYE when it stops: StopApplication). */
void
VideoReceiver::SendRtcp (bool early)
{
  if (Reconsider (early))
    return;
  RtcpHdr h = {};
  uint8_t payload[RTCP_MTU];
  FillReport (h, payload, have_sr_, sender_ssrc_, lsr_, sr_arrival_);
  Send (h, payload);
  Reported (early, stats_);
}
