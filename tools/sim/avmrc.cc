/* avmrc.cc - layered sessions (AVMRC, RMRC, VMRC: papers/003) in ns-3: the paper's synthetic
 * server as avmrcsynth + avmrclayers send it, and receivers as avmrcsrc runs them, lib/cc
 * through amcc/controller.h only (the receiver role of a layered protocol; there is no sender
 * role). Packets carry the stamp's real wire bytes (amcc_avmrc_stamp_encode), so the receiver
 * decodes what the element decodes. */
#include <cmath>
#include <cstring>

#include "ns3/fatal-error.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "sim.h"

using namespace ns3;

static const uint32_t MAGIC_LAYER = 0x414d4c59;
static const uint32_t EXT_BYTES = 24;   /* RFC 8285 one-byte extension: 4 + 1 + 16, padded */

/* what the RTP header and the stamp extension say, in this program's own layout */
struct LayerHdr {
  uint32_t magic, ssrc;
  uint16_t seq;
  uint8_t layer, pad;
  uint8_t stamp[AMCC_AVMRC_STAMP_LEN];
};

static uint32_t
cum_rates (const SimConfig &cfg, double *cum)
{
  uint32_t n = cfg.layers.channels;
  if (amcc_avmrc_layer_rates (cum, n, cfg.layers.b1_bps, cfg.layers.factor) != AMCC_OK)
    NS_FATAL_ERROR ("layers: " << n << " channels from " << cfg.layers.b1_bps << " x "
        << cfg.layers.factor);
  return n;
}

/* ---- the server ---- */
LayeredSender::LayeredSender (const SimConfig &cfg, const std::string &run_dir) : cfg_ (cfg)
{
  double cum[AMCC_AVMRC_MAX_LAYERS];
  uint32_t n = cum_rates (cfg, cum);
  for (uint32_t i = 0; i < n; i++) {
    rate_.push_back (cum[i] - (i ? cum[i - 1] : 0));
    credit_.push_back (0);
    seq_.push_back ((uint16_t) (cfg.seed * 7919 + i * 104729));
    ssrc_.push_back (0x4c000000u + (uint32_t) (cfg.seed % 4096) * 16 + i);
  }
  sd_ = fopen ((run_dir + "/sender/sd.txt").c_str (), "w");
  if (!sd_)
    NS_FATAL_ERROR ("cannot write " << run_dir << "/sender/sd.txt");
}

LayeredSender::~LayeredSender ()
{
  if (sd_)
    fclose (sd_);
}

void
LayeredSender::StartApplication ()
{
  amcc_avmrc_params p;
  amcc_avmrc_params_init (&p);
  amcc_avmrc_clock_init (&clock_, sim_now (cfg_), &p);     /* slot 0 starts now, as avmrclayers */
  sock_ = sim_udp_socket (GetNode (), 0, MakeCallback (&sim_drain));
  Burst ();
}

void
LayeredSender::StopApplication ()
{
  Simulator::Cancel (ev_);
  if (sock_)
    sock_->Close ();
}

/* avmrcsynth's next_burst + create: each channel's credit leaves as whole packets */
void
LayeredSender::Burst ()
{
  const uint32_t size = cfg_.layers.packet_size;
  for (uint32_t i = 0; i < rate_.size (); i++) {
    credit_[i] += rate_[i] * cfg_.layers.period_ms / 1e3 / 8;
    uint32_t n = (uint32_t) (credit_[i] / size);
    credit_[i] -= (double) n * size;
    for (uint32_t k = 0; k < n; k++) {
      amcc_avmrc_stamp st = {};
      st.send_time = sim_now (cfg_);
      st.slot = amcc_avmrc_clock_at (&clock_, st.send_time, &st.flagged);
      st.layer = i;
      LayerHdr h = {};
      h.magic = MAGIC_LAYER;
      h.ssrc = ssrc_[i];
      h.seq = seq_[i]++;
      h.layer = (uint8_t) i;
      if (amcc_avmrc_stamp_encode (&st, h.stamp, sizeof h.stamp) != AMCC_AVMRC_STAMP_LEN)
        NS_FATAL_ERROR ("amcc_avmrc_stamp_encode refused slot " << st.slot);
      uint32_t wire = size + EXT_BYTES;
      sock_->SendTo (sim_packet (&h, sizeof h, nullptr, 0, wire), 0,
          InetSocketAddress (sim_group (cfg_, i), sim_port (cfg_, i)));
      fprintf (sd_, "%.6f id %llu udp %u %u P layer %u\n", sim_wall (cfg_),
          (unsigned long long) (((uint64_t) h.ssrc << 32) | h.seq), wire, frame_++, i);
      packets_sent++;
    }
  }
  ev_ = Simulator::Schedule (MilliSeconds (cfg_.layers.period_ms), &LayeredSender::Burst, this);
}

/* ---- a receiver ---- */
LayeredReceiver::LayeredReceiver (const SimConfig &cfg, const amcc_protocol *proto,
    const SimReceiver &rx, const std::string &run_dir, Membership igmp)
  : cfg_ (cfg), proto_ (proto), rx_ (rx), igmp_ (igmp)
{
  lay_.resize (cfg.layers.channels);
  for (auto &l : lay_)
    amcc_seq_init (&l.seq);
  if (rx.trace) {
    rd_ = fopen ((run_dir + "/rx-" + rx.name + "/rd.txt").c_str (), "w");
    log_ = fopen ((run_dir + "/logs/rx-" + rx.name + ".log").c_str (), "w");
    if (!rd_ || !log_)
      NS_FATAL_ERROR ("cannot write the traces of " << rx.name << " in " << run_dir);
  }
}

LayeredReceiver::~LayeredReceiver ()
{
  if (cc_)
    amcc_receiver_free (cc_);
  if (rd_)
    fclose (rd_);
  if (log_)
    fclose (log_);
}

void
LayeredReceiver::StartApplication ()
{
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.layers = cum_rates (cfg_, c.layer_bps);
  cc_ = amcc_receiver_new (proto_, &c, sim_now (cfg_));
  if (!cc_)
    NS_FATAL_ERROR ("amcc_receiver_new failed for " << rx_.name);
  for (uint32_t k = 0; k < lay_.size (); k++)
    lay_[k].sock = sim_udp_socket (GetNode (), sim_port (cfg_, k),
        MakeCallback (&LayeredReceiver::OnPacket, this));
  if (cfg_.layers.unsync) {
    amcc_avmrc_params ap;
    amcc_avmrc_params_init (&ap);
    n_add_ = ap.n_add;
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable> ();
    phase_ = (uint32_t) u->GetInteger (0, n_add_ - 1);
  }
  wanted = 1;                         /* avmrcsrc starts on the base layer */
  igmp_ (rx_.host, 0, 1, cfg_.join_latency_s);
  double mark = std::max (cfg_.layers.steady_s, rx_.join_s) - Simulator::Now ().GetSeconds ();
  if (log_ && rx_.leave_s > cfg_.layers.steady_s)
    mark_ev_ = Simulator::Schedule (Seconds (std::max (0.0, mark)), &LayeredReceiver::Mark, this);
}

void
LayeredReceiver::StopApplication ()
{
  Simulator::Cancel (mark_ev_);
  for (uint32_t k = 0; k < wanted; k++)
    igmp_ (rx_.host, k, -1, cfg_.leave_latency_s);
  for (auto &l : lay_)
    if (l.sock)
      l.sock->Close ();
  if (log_)
    fprintf (log_, "{\"result\": {\"stats\": %s, \"errors\": false}}\n", Stats ().c_str ());
}

void
LayeredReceiver::OnPacket (Ptr<Socket> s)
{
  Ptr<Packet> p;
  while ((p = s->Recv ())) {
    LayerHdr h;
    if (p->GetSize () < sizeof h)
      continue;
    p->CopyData ((uint8_t *) &h, sizeof h);
    uint32_t k = h.layer;
    if (h.magic != MAGIC_LAYER || k >= lay_.size () || s != lay_[k].sock)
      continue;
    if (k >= wanted) {                /* a layer being left: lib/cc no longer counts it */
      after_leave++;
      continue;
    }
    amcc_time now = sim_now (cfg_);
    amcc_packet pk = {};
    pk.ssrc = h.ssrc;
    pk.seq = h.seq;
    pk.bytes = p->GetSize ();
    pk.send_time = AMCC_TIME_NONE;
    pk.layer = k;
    amcc_avmrc_stamp st;
    if (amcc_avmrc_stamp_decode (&st, h.stamp, sizeof h.stamp) == AMCC_OK && st.layer == k) {
      pk.has_slot = 1;
      pk.send_time = st.send_time;
      pk.slot = st.slot;
      pk.slot_flagged = cfg_.layers.unsync ? (st.slot + phase_) % n_add_ == 0 : st.flagged;
    }
    uint64_t ext = 0;
    (void) amcc_seq_update (&lay_[k].seq, pk.seq, &ext);
    lay_[k].packets++;
    lay_[k].bytes += pk.bytes;
    packets++;
    amcc_receiver_on_rtp (cc_, now, &pk);
    if (rd_)
      fprintf (rd_, "%.6f id %llu udp %u layer %u\n", sim_wall (cfg_),
          (unsigned long long) (((uint64_t) h.ssrc << 32) | h.seq), pk.bytes, k);
    uint32_t w = amcc_receiver_wanted_layers (cc_);
    w = std::min<uint32_t> (std::max<uint32_t> (w, 1), (uint32_t) lay_.size ());
    if (w != wanted)
      Apply (w);
  }
}

/* avmrcsrc's apply_layers: join the layers added, leave the layers dropped; each joined or left
 * layer starts a fresh sequence space (its loss so far is kept in lost_before) */
void
LayeredReceiver::Apply (uint32_t to)
{
  uint32_t from = wanted;
  for (uint32_t k = std::min (from, to); k < std::max (from, to); k++) {
    lay_[k].lost_before += amcc_seq_lost (&lay_[k].seq);
    amcc_seq_init (&lay_[k].seq);
    igmp_ (rx_.host, k, to > from ? 1 : -1, to > from ? cfg_.join_latency_s
        : cfg_.leave_latency_s);
  }
  wanted = to;
  changes++;
  if (log_)
    fprintf (log_, "{\"layers\": {\"t\": %.6f, \"from\": %u, \"to\": %u}}\n", sim_wall (cfg_), from,
        to);
}

void
LayeredReceiver::Mark ()
{
  fprintf (log_, "{\"mark\": %s, \"t\": %.3f}\n", Stats ().c_str (), sim_wall (cfg_));
}

/* avmrcsrc's stats as amcast-layered-node prints them (the fields layered.py reads and a few) */
std::string
LayeredReceiver::Stats ()
{
  amcc_receiver_stats st;
  memset (&st, 0, sizeof st);
  if (cc_)                            /* a receiver whose join falls after the run never started */
    amcc_receiver_get_stats (cc_, sim_now (cfg_), &st);
  char buf[256];
  snprintf (buf, sizeof buf, "{\"protocol\": \"%s\", \"layers\": %u, \"changes\": %llu, "
      "\"after-leave\": %llu, \"adds\": %llu, \"drops\": %llu, \"model-rate\": %.1f", proto_->name,
      wanted, (unsigned long long) changes, (unsigned long long) after_leave,
      (unsigned long long) st.stream_ups, (unsigned long long) st.stream_downs, st.rate_bps);
  std::string out = buf;
  for (uint32_t k = 0; k < lay_.size (); k++) {
    snprintf (buf, sizeof buf, ", \"packets-%u\": %llu, \"lost-%u\": %lld, \"bytes-%u\": %llu", k,
        (unsigned long long) lay_[k].packets, k,
        (long long) (lay_[k].lost_before + amcc_seq_lost (&lay_[k].seq)), k,
        (unsigned long long) lay_[k].bytes);
    out += buf;
  }
  return out + "}";
}
