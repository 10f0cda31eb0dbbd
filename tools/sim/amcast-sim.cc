/* amcast-sim.cc - ns-3 program of `./amcast sim` (docs/sim.md): builds a testbed scenario's
 * topology (hosts, routers, point-to-point links with the scenario's rates, delays and drop-tail
 * queues), the multicast video session (video.cc, lib/cc through amcc/controller.h), the
 * competing flows (flows.cc) and the IGMP model below, runs it and leaves the traces of a run
 * directory (docs/run-directory.md). tools/sim/amcast-sim (Python) reads the TOML with the
 * testbed's own parser, writes the plain config this program reads, and writes meta.json and
 * the metrics afterwards.
 *
 * IGMP model: ns-3 has no IGMP (a socket's MulticastJoinGroup does nothing and a host accepts
 * every group), so membership is the routers' static multicast routes: a router forwards the
 * group out of every interface whose subtree holds a member, except the one it came in on; a
 * join adds the host after join_latency, a leave removes it after leave_latency (a snooping
 * bridge keeps forwarding until its last-member queries go unanswered). The sender's host is
 * always a member (the receivers' RTCP goes to the group, as in the elements). */
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "sim.h"

using namespace ns3;

/* tbf counts Ethernet frames (IP + 14 bytes), a point-to-point link IP + 2 (PPP): the link runs
 * at rate x 1502/1514 so that a full-size packet takes what it takes in the testbed. */
static const double PPP_RATE_FACTOR = 1502.0 / 1514.0;
static const double UNSHAPED_BPS = 1e9;       /* "0 = not shaped": a veth pair, ~1 Gbit/s here */
static const char *UNSHAPED_QUEUE = "1000p";  /* a veth's txqueuelen */

/* The testbed's delay line is a user-space program: it adds a little to each packet's delay
 * (docs/testbed.md, measured at 1-11 Mbit/s: median 0.08-0.18 ms, p99 0.17-0.92 ms, max <= 4.3
 * ms) and keeps the order. A link with a delay (or random loss) gets the same here: an extra
 * delay drawn from an exponential of mean delay_jitter_ms (0.2 ms: median 0.14, p99 0.92),
 * bounded at 4 ms, never overtaking the previous packet. It also breaks the phase lock of a
 * fully deterministic simulation (ACK-clocked TCP packets arriving in step with the queue's
 * departures), which real machines do not have. */
class DelayLineChannel : public PointToPointChannel
{
 public:
  DelayLineChannel (double mean_ms)
  {
    jitter_ = CreateObject<ExponentialRandomVariable> ();
    jitter_->SetAttribute ("Mean", DoubleValue (mean_ms / 1e3));
    jitter_->SetAttribute ("Bound", DoubleValue (0.004));
  }
  bool TransmitStart (Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time tx) override
  {
    int k = src == GetPointToPointDevice (0) ? 0 : 1;
    Ptr<PointToPointNetDevice> dst = GetPointToPointDevice (1 - k);
    Time at = std::max (Simulator::Now () + tx + GetDelay () + Seconds (jitter_->GetValue ()),
        last_[k]);
    last_[k] = at;
    Simulator::ScheduleWithContext (dst->GetNode ()->GetId (), at - Simulator::Now (),
        &PointToPointNetDevice::Receive, dst, p->Copy ());
    return true;
  }

 private:
  Ptr<ExponentialRandomVariable> jitter_;
  Time last_[2];
};

struct Port {                 /* one end of a link */
  uint32_t iface;             /* the node's Ipv4 interface index */
  std::string peer;
};

/* Arrivals and drops at one shaped queue, per kind of packet (video RTP, RTCP, TCP, other
 * UDP): the summary line reports them, so a run says who lost what at the bottleneck. */
struct QueueCount {
  SimConfig *cfg;
  uint64_t n[4][2] = {};      /* kind -> arrived, dropped */
  static const char *kind_name (int k) { return k == 0 ? "video" : k == 1 ? "rtcp" : k == 2 ? "tcp" : "udp"; }
  int kind (Ptr<const QueueDiscItem> item) const
  {
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem> (item);
    if (!ip || ip->GetHeader ().GetProtocol () == 6)
      return 2;
    UdpHeader u;
    item->GetPacket ()->PeekHeader (u);
    return u.GetDestinationPort () == cfg->port ? 0 : u.GetDestinationPort () == cfg->port + 1 ? 1 : 3;
  }
  void Enqueue (Ptr<const QueueDiscItem> item) { n[kind (item)][0]++; }
  void Drop (Ptr<const QueueDiscItem> item, const char *)
  {
    n[kind (item)][0]++;
    n[kind (item)][1]++;
  }
};

struct World {
  SimConfig cfg;
  std::map<std::string, Ptr<Node>> node;
  std::map<std::string, bool> is_router;
  std::map<std::string, std::vector<Port>> ports;
  std::map<std::string, Ipv4Address> addr;    /* a host's (first) address */
  std::map<std::string, int> members;         /* host -> receivers routed there */
  std::map<std::string, QueueCount> queues;   /* "A>B" of every shaped direction */
};

/* Hosts reachable from `from` through `next` without coming back (the topologies are trees). */
static bool
subtree_has_member (World &w, const std::string &from, const std::string &next)
{
  std::vector<std::pair<std::string, std::string>> todo {{from, next}};
  std::set<std::string> seen {from};
  while (!todo.empty ()) {
    auto [prev, x] = todo.back ();
    todo.pop_back ();
    if (!seen.insert (x).second)
      continue;
    if (!w.is_router[x] && w.members[x] > 0)
      return true;
    if (!w.is_router[x])
      continue;             /* hosts do not forward */
    for (auto &p : w.ports[x])
      if (p.peer != prev)
        todo.emplace_back (x, p.peer);
  }
  return false;
}

/* Rebuilds every router's routes for the group from the current members. */
static void
update_routes (World &w)
{
  Ipv4StaticRoutingHelper h;
  Ipv4Address group (w.cfg.group.c_str ());
  for (auto &[name, router] : w.is_router) {
    if (!router)
      continue;
    Ptr<Ipv4StaticRouting> sr = h.GetStaticRouting (w.node[name]->GetObject<Ipv4> ());
    for (uint32_t i = sr->GetNMulticastRoutes (); i-- > 0;)
      if (sr->GetMulticastRoute (i).GetGroup () == group)
        sr->RemoveMulticastRoute (i);
    std::vector<bool> out;
    for (auto &p : w.ports[name])
      out.push_back (subtree_has_member (w, name, p.peer));
    for (size_t in = 0; in < w.ports[name].size (); in++) {
      std::vector<uint32_t> oifs;
      for (size_t j = 0; j < w.ports[name].size (); j++)
        if (j != in && out[j])
          oifs.push_back (w.ports[name][j].iface);
      if (!oifs.empty ())
        sr->AddMulticastRoute (Ipv4Address::GetAny (), group, w.ports[name][in].iface, oifs);
    }
  }
}

static void
membership (World *w, std::string host, int delta)
{
  w->members[host] += delta;
  update_routes (*w);
}

static void
build_links (World &w)
{
  Ipv4AddressHelper ip;
  int subnet = 0;
  for (auto &l : w.cfg.links) {
    if (l.delay_ms[0] != l.delay_ms[1])
      NS_FATAL_ERROR ("link " << l.a << "-" << l.b << ": a point-to-point link has one delay; "
          "the sim does not model different delays per direction");
    PointToPointHelper p2p;
    p2p.SetQueue ("ns3::DropTailQueue<Packet>", "MaxSize", StringValue ("1p"));
    p2p.SetChannelAttribute ("Delay", TimeValue (MilliSeconds (l.delay_ms[0])));
    NetDeviceContainer d = p2p.Install (w.node[l.a], w.node[l.b]);
    bool delay_line = l.delay_ms[0] > 0 || l.loss_pct[0] > 0 || l.loss_pct[1] > 0;
    if (delay_line && w.cfg.delay_jitter_ms > 0) {    /* re-attach both ends to a delay line */
      Ptr<DelayLineChannel> ch = CreateObject<DelayLineChannel> (w.cfg.delay_jitter_ms);
      ch->SetAttribute ("Delay", TimeValue (MilliSeconds (l.delay_ms[0])));
      for (int k = 0; k < 2; k++)
        DynamicCast<PointToPointNetDevice> (d.Get (k))->Attach (ch);
    }
    for (int k = 0; k < 2; k++) {
      double r = l.rate_bps[k] > 0 ? l.rate_bps[k] * PPP_RATE_FACTOR : UNSHAPED_BPS;
      d.Get (k)->SetAttribute ("DataRate", DataRateValue (DataRate ((uint64_t) r)));
      TrafficControlHelper tc;
      std::string q = l.rate_bps[k] > 0 ? std::to_string (l.queue_bytes[k]) + "B" : UNSHAPED_QUEUE;
      tc.SetRootQueueDisc ("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue (QueueSize (q)));
      QueueDiscContainer qd = tc.Install (d.Get (k));
      if (l.rate_bps[k] > 0) {
        QueueCount &qc = w.queues[(k ? l.b : l.a) + ">" + (k ? l.a : l.b)];
        qc.cfg = &w.cfg;
        qd.Get (0)->TraceConnectWithoutContext ("Enqueue", MakeCallback (&QueueCount::Enqueue, &qc));
        qd.Get (0)->TraceConnectWithoutContext ("DropBeforeEnqueue",
            MakeCallback (&QueueCount::Drop, &qc));
      }
      if (l.loss_pct[k] > 0) {        /* random loss on the way a->b is dropped on b's side */
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel> ();
        em->SetAttribute ("ErrorRate", DoubleValue (l.loss_pct[k] / 100.0));
        em->SetAttribute ("ErrorUnit", StringValue ("ERROR_UNIT_PACKET"));
        d.Get (1 - k)->SetAttribute ("ReceiveErrorModel", PointerValue (em));
      }
    }
    char base[32];
    snprintf (base, sizeof base, "10.%d.%d.0", 1 + subnet / 256, subnet % 256);
    subnet++;
    ip.SetBase (base, "255.255.255.0");
    Ipv4InterfaceContainer ifs = ip.Assign (d);
    const std::string ends[2] = {l.a, l.b};
    for (int k = 0; k < 2; k++) {
      w.ports[ends[k]].push_back ({ifs.Get (k).second, ends[1 - k]});
      if (!w.addr.count (ends[k]))
        w.addr[ends[k]] = ifs.GetAddress (k);
    }
  }
}

static void
usage (FILE *f)
{
  fprintf (f, "usage: amcast-sim-ns3 CONFIG RUN_DIR\n"
      "Runs the scenario of CONFIG (written by tools/sim/amcast-sim from a testbed TOML file)\n"
      "in ns-3 and writes the traces of RUN_DIR (docs/run-directory.md): sender/sd.txt,\n"
      "sender/rate.csv, rx-NAME/rd.txt, rx-NAME/stats.csv, flows/NAME.csv; prints one JSON\n"
      "summary line. Use `./amcast sim FILE.toml` (docs/sim.md) rather than this directly.\n");
}

int
main (int argc, char **argv)
{
  if (argc > 1 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h"))) {
    usage (stdout);
    return 0;
  }
  if (argc != 3) {
    usage (stderr);
    return 2;
  }
  World w;
  SimConfig &cfg = w.cfg;
  if (!sim_config_read (argv[1], cfg))
    return 2;
  std::string run = argv[2];
  const amcc_protocol *proto = amcc_protocol_find (cfg.protocol.c_str ());
  if (!proto || !proto->sender || !proto->receiver || proto->max_streams > 1) {
    fprintf (stderr, "amcast-sim: protocol '%s' is not a single-stream lib/cc protocol\n",
        cfg.protocol.c_str ());
    return 2;
  }
  auto wall0 = std::chrono::steady_clock::now ();
  RngSeedManager::SetSeed (1);
  RngSeedManager::SetRun (cfg.seed);
  /* TCP as Linux runs it in the testbed: 1448-byte MSS with timestamps, IW10, 200 ms min RTO,
   * delayed ACKs after at most 40 ms (Linux's TCP_ATO_MIN; ns-3's 200 ms default against a
   * 200 ms minimum RTO made a one-segment window time out again and again: CUBIC stuck at
   * 45 kbit/s in dumbbell-cubic), buffers large enough that the window, not the buffer, limits
   * a flow */
  Config::SetDefault ("ns3::TcpSocket::DelAckTimeout", TimeValue (MilliSeconds (40)));
  Config::SetDefault ("ns3::TcpSocket::SegmentSize", UintegerValue (1448));
  Config::SetDefault ("ns3::TcpSocket::InitialCwnd", UintegerValue (10));
  Config::SetDefault ("ns3::TcpSocket::SndBufSize", UintegerValue (4 << 20));
  Config::SetDefault ("ns3::TcpSocket::RcvBufSize", UintegerValue (6 << 20));
  Config::SetDefault ("ns3::TcpSocketBase::MinRto", TimeValue (MilliSeconds (200)));

  InternetStackHelper stack;
  for (auto &[name, router] : cfg.nodes) {
    w.node[name] = CreateObject<Node> ();
    w.is_router[name] = router;
    stack.Install (w.node[name]);
  }
  build_links (w);
  Ipv4GlobalRoutingHelper::PopulateRoutingTables ();
  Ipv4StaticRoutingHelper mr;
  for (auto &[name, router] : w.is_router)
    if (!router && !w.ports[name].empty ())     /* hosts send the group out of their link */
      mr.SetDefaultMulticastRoute (w.node[name],
          w.node[name]->GetObject<Ipv4> ()->GetNetDevice (w.ports[name][0].iface));
  w.members[cfg.sender] = 1;
  update_routes (w);

  namespace fs = std::filesystem;
  fs::create_directories (run + "/sender");
  fs::create_directories (run + "/flows");
  Ptr<VideoSender> snd = Create<VideoSender> (cfg, proto, run);
  w.node[cfg.sender]->AddApplication (snd);
  snd->SetStartTime (Seconds (0));
  snd->SetStopTime (Seconds (cfg.duration_s));
  Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable> ();
  std::vector<Ptr<VideoReceiver>> rxs;
  for (auto &r : cfg.receivers) {
    fs::create_directories (run + "/rx-" + r.name);
    Ptr<VideoReceiver> rx = Create<VideoReceiver> (cfg, proto, r,
        (uint32_t) u->GetInteger (1, 0xfffffffe), run);
    w.node[r.host]->AddApplication (rx);
    double leave = std::min (r.leave_s, cfg.duration_s);
    rx->SetStartTime (Seconds (r.join_s));
    rx->SetStopTime (Seconds (leave));
    Simulator::Schedule (Seconds (r.join_s + cfg.join_latency_s), &membership, &w, r.host, 1);
    if (leave < cfg.duration_s)
      Simulator::Schedule (Seconds (leave + cfg.leave_latency_s), &membership, &w, r.host, -1);
    rxs.push_back (rx);
  }
  for (auto &f : cfg.flows) {
    bool tcp = f.kind.rfind ("tcp", 0) == 0;
    Ptr<FlowSink> sink = Create<FlowSink> (cfg, tcp, f.port, run + "/flows/" + f.name + ".csv");
    w.node[f.dst]->AddApplication (sink);
    sink->SetStartTime (Seconds (0));
    sink->SetStopTime (Seconds (cfg.duration_s));
    Ptr<FlowSource> src = Create<FlowSource> (f, w.addr[f.dst]);
    w.node[f.src]->AddApplication (src);
    src->SetStartTime (Seconds (0));
    src->SetStopTime (Seconds (cfg.duration_s));
  }
  Simulator::Stop (Seconds (cfg.duration_s + 0.001));
  Simulator::Run ();
  double wall_s = std::chrono::duration<double> (std::chrono::steady_clock::now () - wall0).count ();
  printf ("{\"protocol\": \"%s\", \"sim_s\": %.3f, \"wall_s\": %.3f, \"wall_per_sim_s\": %.5f, "
      "\"packets_sent\": %llu, \"rtcp_in\": %llu, \"app_taken\": %llu, \"app_malformed\": %llu, "
      "\"receivers\": {", cfg.protocol.c_str (), cfg.duration_s, wall_s, wall_s / cfg.duration_s,
      (unsigned long long) snd->packets_sent, (unsigned long long) snd->rtcp_in,
      (unsigned long long) snd->app_taken, (unsigned long long) snd->app_bad);
  for (size_t i = 0; i < rxs.size (); i++)
    printf ("%s\"%s\": {\"packets\": %llu, \"reports\": %llu}", i ? ", " : "",
        cfg.receivers[i].name.c_str (), (unsigned long long) rxs[i]->packets,
        (unsigned long long) rxs[i]->reports_sent);
  printf ("}, \"queues\": {");
  const char *sep = "";
  for (auto &[name, qc] : w.queues) {
    printf ("%s\"%s\": {", sep, name.c_str ());
    for (int k = 0; k < 4; k++)
      printf ("%s\"%s\": [%llu, %llu]", k ? ", " : "", QueueCount::kind_name (k),
          (unsigned long long) qc.n[k][0], (unsigned long long) qc.n[k][1]);
    printf ("}");
    sep = ", ";
  }
  printf ("}, \"errors\": %s}\n", snd->app_bad ? "true" : "false");
  Simulator::Destroy ();
  return 0;
}
