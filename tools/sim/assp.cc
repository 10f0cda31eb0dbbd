/* assp.cc - the simulcast (ASSP) receiver in ns-3: what asspsrc (gst/asspsrc) does around lib/cc,
 * through amcc/controller.h only. The K stream senders are video.cc's VideoSender, one per
 * stream, tied by amcc_sender_group in amcast-sim.cc as asspsimulcast ties them.
 *
 * Modelled as the element does it: lib/cc's decision is looked at on every packet of the stream
 * output; a wanted stream is joined ahead (its group reaches the host after the IGMP model's
 * join latency), its sender asked for a key frame (RTCP PLI) at its first packet, and the output
 * switches at its first key frame; a stream joined ahead that shows no key frame in
 * JOIN_TIMEOUT is given up. Simplified: one RTCP timer (the element runs one RTP session per
 * joined stream; the one joined ahead, with no controller lent, would send only plain RRs),
 * reports go to the stream output's session; at a switch a BYE goes to the old session (as the
 * asmpsrc of the stream asspsrc leaves says BYE when it stops).
 *
 * First in this file: RtcpReceiver, the receivers' RTCP plumbing (lib/cc's receiver, the report
 * timer, stats.csv rows) that video.cc's VideoReceiver shares. */
#include <cmath>
#include <cstring>
#include <filesystem>

#include "ns3/fatal-error.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "sim.h"

extern "C" {
#include <amcc/assp.h>
#include <amcc/rtcp_app.h>
}

using namespace ns3;

static const Time EARLY_GAP = MilliSeconds (50);      /* as video.cc's: early RTCP this often */
static const Time JOIN_TIMEOUT = Seconds (10);        /* asspsrc's JOIN_TIMEOUT_NS */

/* ---- what VideoReceiver and AsspReceiver share ---- */
RtcpReceiver::RtcpReceiver (const SimConfig &cfg, const amcc_protocol *proto,
    const SimReceiver &rx, uint32_t ssrc)
  : cfg_ (cfg), proto_ (proto), rx_ (rx), ssrc_ (ssrc)
{
  timer_.u = CreateObject<UniformRandomVariable> ();
  timer_.min_s = cfg.rtcp_ms / 1000.0;
}

RtcpReceiver::~RtcpReceiver ()
{
  if (cc_)
    amcc_receiver_free (cc_);
}

/* a stats.csv with its header, as asmpsrc's stats message has the fields */
FILE *
RtcpReceiver::OpenStats (const std::string &path)
{
  FILE *f = fopen (path.c_str (), "w");
  if (f)
    fprintf (f, "time_s,rate_bps,recv_bps,loss,rtt_s,jitter_s,congested,mode,queue_s\n");
  return f;
}

void
RtcpReceiver::NewController ()
{
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.initial_bps = 0;                  /* asmpsrc: the protocol's default */
  c.rtcp_interval = (amcc_time) cfg_.rtcp_ms * AMCC_NS_PER_MS;
  c.clock_rate = 90000;
  c.ssrc = ssrc_;
  c.seed = cfg_.seed * 0x9e3779b97f4a7c15ULL + ssrc_;
  cc_ = amcc_receiver_new (proto_, &c, sim_now (cfg_));
  if (!cc_)
    NS_FATAL_ERROR ("amcc_receiver_new failed for " << rx_.name);
}

/* the first report after half the minimum interval (RtcpTimer), 2 members assumed */
void
RtcpReceiver::StartTimer (double session_bps)
{
  row_time_ = sim_wall (cfg_);
  last_rtcp_ = Simulator::Now ();
  rtcp_ev_ = Simulator::Schedule (Seconds (timer_.next_interval (session_bps, 2, false, 1, 100)),
      &RtcpReceiver::SendRtcp, this, false);
}

void
RtcpReceiver::StopTimers ()
{
  Simulator::Cancel (rtcp_ev_);
  Simulator::Cancel (early_ev_);
}

/* forward reconsideration (RFC 3550 6.3.6, A.7 OnExpire): the interval again from the members
 * heard by now; not yet due from the last packet: wait until it is (true). Without it, a
 * receiver that joins knowing nobody reports after ~0.5 s, and 1 000 joins a second put 1 000
 * reports a second on the group. */
bool
RtcpReceiver::Reconsider (bool early)
{
  if (early)
    return false;
  Time tnow = Simulator::Now ();
  Time due = last_rtcp_ + Seconds (Interval ());
  if (due <= tnow)
    return false;
  rtcp_ev_ = Simulator::Schedule (due - tnow, &RtcpReceiver::SendRtcp, this, false);
  return true;
}

/* an RTP packet taken: counted, in rd.txt, and to lib/cc if feed */
void
RtcpReceiver::Measure (FILE *rd, const RtpHdr &h, uint32_t bytes, bool feed)
{
  packets++;
  bytes_ += bytes;
  if (rd)
    fprintf (rd, "%.6f id %llu udp %u\n", sim_wall (cfg_),
        (unsigned long long) (((uint64_t) h.ssrc << 32) | h.extseq), bytes);
  if (!feed)
    return;
  amcc_packet pkt = {};
  pkt.ssrc = h.ssrc;
  pkt.seq = (uint16_t) h.extseq;
  pkt.rtp_ts = h.rtp_ts;
  pkt.bytes = bytes;
  pkt.send_time = h.send_time;
  pkt.has_extseq = 1;
  pkt.extseq = h.extseq;
  amcc_receiver_on_rtp (cc_, sim_now (cfg_), &pkt);
}

/* an RTCP packet of another member, whole (header and APP payload) in all; false: not one */
bool
RtcpReceiver::TakeRtcp (Ptr<Packet> p, RtcpHdr &h, std::vector<uint8_t> &all) const
{
  if (p->GetSize () < sizeof h)
    return false;
  p->CopyData ((uint8_t *) &h, sizeof h);
  if (h.magic != MAGIC_RTCP || h.ssrc == ssrc_ || h.app_len > RTCP_MTU
      || p->GetSize () < sizeof h + h.app_len)
    return false;
  all.resize (p->GetSize ());
  p->CopyData (all.data (), all.size ());
  return true;
}

/* an SR to lib/cc, with the interval RFC 3550 computes now (ASMP's eq. 20 compares it with
 * T_suspend) and the members heard */
void
RtcpReceiver::OnSenderReport (const RtcpHdr &h, const Peers &peers)
{
  amcc_time now = sim_now (cfg_);
  amcc_receiver_set_rtcp_interval (cc_, now, (amcc_time) (std::max (timer_.td, timer_.min_s)
          * AMCC_NS_PER_S));
  amcc_receiver_on_sender_report (cc_, now, h.ssrc, (uint32_t) peers.size () + 1);
}

void
RtcpReceiver::OnApp (const RtcpHdr &h, const std::vector<uint8_t> &all)
{
  if (h.has_app)
    amcc_receiver_on_app (cc_, sim_now (cfg_), h.ssrc, h.name, h.subtype, all.data () + sizeof h,
        h.app_len);
}

/* members: the SSRCs heard in the last 5 deterministic intervals (RFC 3550 6.3.5, M = 5), and
 * us; the others time out. The session bandwidth: what came in between the last two reports. */
double
RtcpReceiver::NextInterval (double fallback_bps, Peers &peers)
{
  Time tnow = Simulator::Now ();
  Time window = Seconds (5 * std::max (timer_.td, timer_.min_s));
  for (auto it = peers.begin (); it != peers.end ();)
    it = tnow - it->second < window ? std::next (it) : peers.erase (it);
  return timer_.next_interval (sender_bps_ > 0 ? sender_bps_ : fallback_bps,
      1 + (uint32_t) peers.size (), false, 1, 100);
}

/* an RR: the report block about the sender (LSR/DLSR of its last SR) if block, lib/cc's APP */
void
RtcpReceiver::FillReport (RtcpHdr &h, uint8_t *payload, bool block, uint32_t about, uint32_t lsr,
    Time sr_arrival)
{
  h.type = T_RR;
  if (block) {
    h.has_block = 1;
    h.about = about;
    h.lsr = lsr;
    h.dlsr = (uint32_t) ((Simulator::Now () - sr_arrival).GetSeconds () * 65536.0);
  }
  amcc_app app;
  size_t room = RTCP_MTU - 8 - 24 - SDES_BYTES - 12;
  if (amcc_receiver_next_app (cc_, sim_now (cfg_), payload, room, &app) == 1) {
    h.has_app = 1;
    memcpy (h.name, app.name, 4);
    h.subtype = app.subtype;
    h.app_len = (uint32_t) app.len;
  }
}

/* a report has gone: a stats.csv row (one per RTCP packet, as asmpsrc's stats message), the
 * next report timed */
void
RtcpReceiver::Reported (bool early, FILE *stats)
{
  amcc_time now = sim_now (cfg_);
  last_rtcp_ = Simulator::Now ();
  reports_sent++;
  timer_.first = false;
  amcc_receiver_stats st;
  amcc_receiver_get_stats (cc_, now, &st);
  double t = sim_wall (cfg_);
  double recv = t > row_time_ ? 8.0 * (bytes_ - bytes_at_row_) / (t - row_time_) : 0.0;
  if (stats)
    fprintf (stats, "%.6f,%.0f,%.0f,%.6f,%.6f,%.6f,%d,%s,%.4f\n", t, st.rate_bps, recv, st.loss,
        st.rtt_s, st.jitter_s, st.congested ? 1 : 0, st.mode ? st.mode : "", st.queue_s);
  if (recv > 0)
    sender_bps_ = recv;
  row_time_ = t;
  bytes_at_row_ = bytes_;
  if (!early)
    rtcp_ev_ = Simulator::Schedule (Seconds (Interval ()), &RtcpReceiver::SendRtcp, this, false);
  ScheduleEarly ();
}

void
RtcpReceiver::ScheduleEarly ()
{
  amcc_time now = sim_now (cfg_);
  amcc_time due = amcc_receiver_early_due (cc_, now);
  if (due == AMCC_TIME_NONE) {
    Simulator::Cancel (early_ev_);
    return;
  }
  Time at = std::max (NanoSeconds (std::max<amcc_time> (due - now, 0)),
      last_rtcp_ + EARLY_GAP - Simulator::Now ());
  if (early_ev_.IsRunning ()
      && (int64_t) early_ev_.GetTs () <= (Simulator::Now () + at).GetTimeStep ())
    return;
  Simulator::Cancel (early_ev_);
  early_ev_ = Simulator::Schedule (at, &RtcpReceiver::SendRtcp, this, true);
}

/* ---- the simulcast receiver ---- */
AsspReceiver::AsspReceiver (const SimConfig &cfg, const amcc_protocol *proto,
    const SimReceiver &rx, uint32_t ssrc, const std::string &run_dir, Membership igmp)
  : RtcpReceiver (cfg, proto, rx, ssrc), dir_ (run_dir + "/rx-" + rx.name), igmp_ (igmp)
{
  st_.resize (cfg.streams.size ());
  if (rx.trace) {
    switches_ = fopen ((dir_ + "/switches.csv").c_str (), "w");
    if (switches_)
      fprintf (switches_, "time_s,from,to,decided_s,gap_s\n");
  }
}

AsspReceiver::~AsspReceiver ()
{
  for (auto &s : st_) {
    if (s.rd)
      fclose (s.rd);
    if (s.stats)
      fclose (s.stats);
  }
  if (switches_)
    fclose (switches_);
}

void
AsspReceiver::StartApplication ()
{
  NewController ();
  if (cfg_.knee_hold_s >= 0) {        /* --knee-hold: what lib/cc's deviation changes */
    amcc_assp_params p;
    amcc_assp_params_init (&p);
    p.knee_hold = (amcc_time) (cfg_.knee_hold_s * AMCC_NS_PER_S);
    if (amcc_assp_receiver_set_params (cc_, &p) != AMCC_OK)
      NS_FATAL_ERROR ("knee_hold " << cfg_.knee_hold_s << " refused");
  }
  /* every stream's ports are bound; only a joined stream's packets are taken (the host gets a
   * group's packets only while a member, or another member on its link, wants them) */
  for (uint32_t k = 0; k < st_.size (); k++) {
    st_[k].rtp = sim_udp_socket (GetNode (), sim_port (cfg_, k),
        MakeCallback (&AsspReceiver::OnRtp, this));
    st_[k].rtcp = sim_udp_socket (GetNode (), sim_port (cfg_, k) + 1,
        MakeCallback (&AsspReceiver::OnRtcp, this));
  }
  Join (0);
  StartTimer (cfg_.streams[0].min_bps);
}

void
AsspReceiver::StopApplication ()
{
  if (!cc_)
    return;                           /* its join fell after the run's end: it never started */
  StopTimers ();
  RtcpHdr bye = {};
  bye.type = T_BYE;
  SendTo (on_, bye, nullptr);
  Leave (on_);
  if (joining_ >= 0)
    Leave ((uint32_t) joining_);
  for (auto &s : st_) {
    s.rtp->Close ();
    s.rtcp->Close ();
    if (s.rd)
      fflush (s.rd);
    if (s.stats)
      fflush (s.stats);
  }
  if (switches_)
    fflush (switches_);
}

void
AsspReceiver::Join (uint32_t k)
{
  Stream &s = st_[k];
  s.joined = true;
  if (rx_.trace && !s.rd) {           /* asspsrc's trace-dir: streamK/ once joined; appended */
    std::string d = dir_ + "/stream" + std::to_string (k);
    std::filesystem::create_directories (d);
    s.rd = fopen ((d + "/rd.txt").c_str (), "w");
    s.stats = OpenStats (d + "/stats.csv");
  }
  igmp_ (rx_.host, k, 1, cfg_.join_latency_s);
}

void
AsspReceiver::Leave (uint32_t k)
{
  st_[k].joined = false;
  st_[k].left_s = Simulator::Now ().GetSeconds ();
  st_[k].peers.clear ();
  st_[k].sender_ssrc = 0;
  igmp_ (rx_.host, k, -1, cfg_.leave_latency_s);
}

int
AsspReceiver::StreamOf (Ptr<Socket> s, bool rtcp) const
{
  for (uint32_t k = 0; k < st_.size (); k++)
    if ((rtcp ? st_[k].rtcp : st_[k].rtp) == s)
      return (int) k;
  return -1;
}

/* asspsrc's out_probe: the stream output feeds lib/cc and is where the decision is read; the
 * stream joined ahead asks for a key frame at its first packet and takes over at its first key
 * frame. */
void
AsspReceiver::Follow (uint32_t k, const RtpHdr &h)
{
  amcc_time now = sim_now (cfg_);
  Time tnow = Simulator::Now ();
  if (k == on_) {
    uint32_t w = amcc_receiver_wanted_stream (cc_);
    if (joining_ < 0 && w != on_ && w < st_.size ()) {
      joining_ = (int) w;
      decided_at_ = tnow;
      key_asked_ = false;
      Join (w);
    } else if (joining_ >= 0 && tnow - decided_at_ > JOIN_TIMEOUT) {
      Leave ((uint32_t) joining_);    /* no key frame came: give it up, decide again */
      joining_ = -1;
      amcc_receiver_set_stream (cc_, now, on_);
    }
  } else if ((int) k == joining_ && h.key_start) {
    uint32_t old = on_;
    on_ = k;
    joining_ = -1;
    switches++;
    if (amcc_receiver_set_stream (cc_, now, k) != AMCC_OK)
      NS_FATAL_ERROR ("amcc_receiver_set_stream refused stream " << k);
    if (switches_)
      fprintf (switches_, "%.6f,%u,%u,%.6f,%.6f\n", sim_wall (cfg_), old, k,
          cfg_.t0 + decided_at_.GetSeconds (), (tnow - decided_at_).GetSeconds ());
    RtcpHdr bye = {};
    bye.type = T_BYE;
    SendTo (old, bye, nullptr);
    Leave (old);
  } else if ((int) k == joining_ && !key_asked_) {
    key_asked_ = true;                /* its sender is known now: a PLI instead of a GOP's wait */
    RtcpHdr pli = {};
    pli.type = T_PLI;
    pli.about = h.ssrc;
    SendTo (k, pli, nullptr);
  }
}

void
AsspReceiver::OnRtp (Ptr<Socket> s)
{
  int k = StreamOf (s, false);
  Ptr<Packet> p;
  while ((p = s->Recv ())) {
    RtpHdr h;
    if (k < 0 || p->GetSize () < sizeof h)
      continue;
    if (!st_[k].joined) {             /* still forwarded to the host (leave latency) */
      stray++;
      stray_never += st_[k].left_s < 0;
      if (st_[k].left_s >= 0)
        stray_after_leave_s = std::max (stray_after_leave_s, Simulator::Now ().GetSeconds ()
            - st_[k].left_s);
      continue;
    }
    p->CopyData ((uint8_t *) &h, sizeof h);
    if (h.magic != MAGIC_RTP)
      continue;
    /* the element measures the stream it outputs */
    Measure (st_[k].rd, h, p->GetSize (), (uint32_t) k == on_);
    Follow ((uint32_t) k, h);
  }
  ScheduleEarly ();
}

void
AsspReceiver::OnRtcp (Ptr<Socket> s)
{
  int k = StreamOf (s, true);
  Ptr<Packet> p;
  Time tnow = Simulator::Now ();
  std::vector<uint8_t> all;
  while ((p = s->Recv ())) {
    RtcpHdr h;
    if (k < 0 || !st_[k].joined || !TakeRtcp (p, h, all) || h.type == T_PLI)
      continue;
    Stream &st = st_[k];
    if (h.type == T_BYE) {
      st.peers.erase (h.ssrc);
      continue;
    }
    st.peers[h.ssrc] = tnow;
    if (h.type == T_SR) {
      st.sender_ssrc = h.ssrc;
      st.lsr = h.ntp_mid32;
      st.sr_arrival = tnow;
    }
    if ((uint32_t) k != on_)
      continue;                       /* lib/cc hears the stream output's session only */
    if (h.type == T_SR)
      OnSenderReport (h, st.peers);
    OnApp (h, all);
  }
  ScheduleEarly ();
}

/* RTCP interval from the stream output's session */
double
AsspReceiver::Interval ()
{
  return NextInterval (cfg_.streams[on_].min_bps, st_[on_].peers);
}

void
AsspReceiver::SendTo (uint32_t k, RtcpHdr &h, const uint8_t *payload)
{
  h.magic = MAGIC_RTCP;
  h.ssrc = ssrc_;
  st_[k].rtcp->SendTo (sim_packet (&h, sizeof h, payload, h.has_app ? h.app_len : 0,
          sim_rtcp_bytes (h)), 0, InetSocketAddress (sim_group (cfg_, k), sim_port (cfg_, k) + 1));
}

/* An RR about the stream output's sender with lib/cc's APP, and a stats.csv row in that
 * stream's directory. */
void
AsspReceiver::SendRtcp (bool early)
{
  if (Reconsider (early))
    return;
  Stream &st = st_[on_];
  RtcpHdr h = {};
  uint8_t payload[RTCP_MTU];
  FillReport (h, payload, st.sender_ssrc != 0, st.sender_ssrc, st.lsr, st.sr_arrival);
  SendTo (on_, h, payload);
  Reported (early, st.stats);
}
