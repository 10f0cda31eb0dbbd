/* rmanp-node.cc - one member of an RMANP session in ns-3 (rmanp-sim.h): the source, a relay or a
 * receiver, each the lib/cc role behind the same calls the elements make. Data goes down as a
 * copy per interface toward the member's children (its own group: the routers forward it);
 * control goes up to the parent by unicast. After every input and at the role's _next_due the
 * node polls until 0 and sends what it gets. */
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "rmanp-sim.h"

using namespace ns3;

amcc_time
rmanp_now ()
{
  return Simulator::Now ().GetNanoSeconds ();
}

RmanpNode::RmanpNode (const RmanpCfg &cfg, int member, RmanpShared *shared)
  : role ((RmanpRole) cfg.members[member].role), cfg_ (cfg), member_ (member), shared_ (shared)
{
  uint32_t id = (uint32_t) member + 1;          /* the node id in CI / NACK / ACK */
  if (role == RMANP_SOURCE)
    src_ = amcc_rmanp_source_new (&cfg.p, rmanp_now ());
  else if (role == RMANP_RELAY && cfg.relay_controller) {
    amcc_ctl_config c;
    amcc_ctl_config_init (&c);
    c.min_bps = cfg.p.rm_bps;
    c.ssrc = id;
    crel_ = amcc_relay_new (amcc_protocol_find ("rmanp"), &c, rmanp_now ());
  } else if (role == RMANP_RELAY)
    rel_ = amcc_rmanp_relay_new (&cfg.p, id, rmanp_now ());
  else
    rx_ = amcc_rmanp_receiver_new (&cfg.p, id, rmanp_now ());
  if (!src_ && !rel_ && !crel_ && !rx_)
    NS_FATAL_ERROR ("rmanp-sim: invalid RMANP parameters for " << cfg.members[member].name);
}

RmanpNode::~RmanpNode ()
{
  amcc_rmanp_source_free (src_);
  amcc_rmanp_relay_free (rel_);
  if (crel_)
    amcc_relay_free (crel_);
  amcc_rmanp_receiver_free (rx_);
}

void
RmanpNode::Stats (struct amcc_rmanp_stats *st) const
{
  if (src_)
    amcc_rmanp_source_get_stats (src_, st);
  else if (rel_)
    amcc_rmanp_relay_get_stats (rel_, st);
  else if (rx_)
    amcc_rmanp_receiver_get_stats (rx_, st);
  else {                                      /* the controller table has the rate only */
    *st = (struct amcc_rmanp_stats) {};
    st->rate_bps = amcc_relay_rate (crel_, rmanp_now ());
  }
}

size_t RmanpNode::Memory () const { return rel_ ? amcc_rmanp_relay_memory (rel_) : 0; }

static Ptr<Socket>
udp (Ptr<Node> n, uint16_t port, RmanpNode *self, void (RmanpNode::*cb) (Ptr<Socket>))
{
  Ptr<Socket> s = Socket::CreateSocket (n, UdpSocketFactory::GetTypeId ());
  if (s->Bind (InetSocketAddress (Ipv4Address::GetAny (), port)) != 0)
    NS_FATAL_ERROR ("rmanp-sim: cannot bind port " << port);
  if (cb)
    s->SetRecvCallback (MakeCallback (cb, self));
  return s;
}

void
RmanpNode::StartApplication ()
{
  Ptr<Node> n = GetNode ();
  if (role != RMANP_SOURCE)                   /* data from the parent's group */
    in_ = udp (n, in_port, this, &RmanpNode::OnRecv);
  if (role != RMANP_RECEIVER)                 /* control from the children */
    ctl_ = udp (n, RMANP_CTL_PORT, this, &RmanpNode::OnRecv);
  for (auto &d : down_devs) {
    Ptr<Socket> s = udp (n, 0, this, nullptr);
    s->BindToNetDevice (d);
    down_.push_back (s);
  }
  t_last_ = Simulator::Now ().GetSeconds ();
  Pump ();
}

void
RmanpNode::StopApplication ()
{
  Simulator::Cancel (ev_);
  Integrate ();
  for (auto &s : down_)
    s->Close ();
  if (in_)
    in_->Close ();
  if (ctl_)
    ctl_->Close ();
}

int
RmanpNode::Poll (amcc_time now, uint8_t *b, size_t cap, amcc_rmanp_dir *dir)
{
  if (src_)
    return amcc_rmanp_source_poll (src_, now, b, cap, dir);
  if (rel_)
    return amcc_rmanp_relay_poll (rel_, now, b, cap, dir);
  if (crel_) {
    int up = 0, n = amcc_relay_poll (crel_, now, b, cap, &up);
    *dir = up ? AMCC_RMANP_UP : AMCC_RMANP_DOWN;
    return n;
  }
  return amcc_rmanp_receiver_poll (rx_, now, b, cap, dir);
}

amcc_time
RmanpNode::NextDue (amcc_time now)
{
  if (src_)
    return amcc_rmanp_source_next_due (src_, now);
  if (rel_)
    return amcc_rmanp_relay_next_due (rel_, now);
  if (crel_)
    return amcc_relay_next_due (crel_, now);
  return amcc_rmanp_receiver_next_due (rx_, now);
}

void
RmanpNode::OnRecv (Ptr<Socket> s)
{
  Ptr<Packet> p;
  Address from;
  uint8_t b[RMANP_SIM_MAX_PACKET];             /* read_cfg caps packet_bytes (header included) */
  amcc_time now = rmanp_now ();
  while ((p = s->RecvFrom (from))) {
    uint32_t n = p->GetSize ();
    if (n > sizeof b) {
      decode_errors++;                          /* counted in the summary; read_cfg prevents it */
      continue;
    }
    p->CopyData (b, n);
    pkts_in++;
    int from_parent = s == in_;
    struct amcc_rmanp_pkt k;
    bool data = from_parent && amcc_rmanp_decode (&k, b, n) == AMCC_OK && k.type == AMCC_RMANP_DATA;
    if (data && rx_) {
      if (arrive_ns.size () <= k.seq)
        arrive_ns.resize (k.seq + 1, -1);
      if (arrive_ns[k.seq] < 0)
        arrive_ns[k.seq] = now;
    }
    if (data && rel_ && (!have_hi || k.seq > hi)) {
      hi = k.seq;
      have_hi = true;
    }
    int e = src_ ? amcc_rmanp_source_on_packet (src_, now, b, n)
        : rel_ ? amcc_rmanp_relay_on_packet (rel_, now, from_parent, b, n)
        : crel_ ? amcc_relay_on_packet (crel_, now, from_parent, b, n)
        : amcc_rmanp_receiver_on_packet (rx_, now, b, n);
    decode_errors += e != AMCC_OK;
  }
  Pump ();
}

/* The application keeps the source's buffer full until the whole file is handed over. */
void
RmanpNode::Feed ()
{
  uint8_t chunk[4096];
  while (written < cfg_.file_bytes) {
    size_t want = sizeof chunk;
    if (cfg_.file_bytes - written < want)
      want = (size_t) (cfg_.file_bytes - written);
    for (size_t i = 0; i < want; i++)
      chunk[i] = rmanp_file_byte (written + i);
    size_t took = amcc_rmanp_source_write (src_, chunk, want);
    written += took;
    if (took < want)
      break;
  }
  if (written == cfg_.file_bytes && !finished_) {
    amcc_rmanp_source_finish (src_);
    finished_ = true;
  }
}

void
RmanpNode::Read ()
{
  uint8_t b[4096];
  size_t n;
  while ((n = amcc_rmanp_receiver_read (rx_, b, sizeof b)) > 0) {
    for (size_t k = 0; k < n; k++)
      bad += b[k] != rmanp_file_byte (got + k);
    got += n;
  }
  if (done_s < 0 && amcc_rmanp_receiver_done (rx_))
    done_s = Simulator::Now ().GetSeconds ();
}

void
RmanpNode::Send (const uint8_t *b, int n, amcc_rmanp_dir dir)
{
  Ptr<Packet> p = Create<Packet> (b, (uint32_t) n);
  if (dir == AMCC_RMANP_UP) {
    Ptr<Socket> s = ctl_ ? ctl_ : in_;
    s->SendTo (p, 0, InetSocketAddress (parent_addr, RMANP_CTL_PORT));
    bytes_up += n;
    return;
  }
  struct amcc_rmanp_pkt k;
  if (src_ && amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK
      && !(k.flags & AMCC_RMANP_F_RETX)) {    /* a first emission: the delays count from it */
    if (shared_->sent_ns.size () <= k.seq)
      shared_->sent_ns.resize (k.seq + 1, -1);
    if (shared_->sent_ns[k.seq] < 0)
      shared_->sent_ns[k.seq] = rmanp_now ();
  }
  for (auto &s : down_)
    s->SendTo (p->Copy (), 0, InetSocketAddress (group, group_port));
  bytes_down += n;
}

/* new_queue and the packets held for the children (heard from the parent, not yet ACKed by
 * all of them), integrated over time: they change only inside the handlers, which end here. */
void
RmanpNode::Integrate ()
{
  if (!rel_)
    return;
  double t = Simulator::Now ().GetSeconds ();
  q_area += q_now * (t - t_last_);
  held_area += held_now * (t - t_last_);
  t_last_ = t;
  struct amcc_rmanp_stats st;
  amcc_rmanp_relay_get_stats (rel_, &st);
  q_now = st.queued;
  held_now = have_hi && hi + 1 > st.acked ? hi + 1 - st.acked : 0;
  if (held_now > held_peak)
    held_peak = held_now;
}

void
RmanpNode::Pump ()
{
  amcc_time now = rmanp_now ();
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  int n;
  if (src_) {
    Feed ();
    if (done_s < 0 && amcc_rmanp_source_done (src_))
      done_s = Simulator::Now ().GetSeconds ();
  }
  while ((n = Poll (now, b, sizeof b, &dir)) > 0) {
    Send (b, n, dir);
    if (src_)
      Feed ();                                /* room freed: the writer goes on */
  }
  if (n < 0)
    NS_FATAL_ERROR ("rmanp-sim: poll of " << cfg_.members[member_].name << " returned " << n);
  if (rx_)
    Read ();
  Integrate ();
  amcc_time due = NextDue (now);
  Simulator::Cancel (ev_);
  if (due == AMCC_TIME_NONE)
    return;
  amcc_time wait = due - now;
  if (wait <= 0) {                            /* due now but nothing to send: not a busy loop */
    stalls++;
    wait = 1000000;
  }
  ev_ = Simulator::Schedule (NanoSeconds (wait), &RmanpNode::Pump, this);
}
