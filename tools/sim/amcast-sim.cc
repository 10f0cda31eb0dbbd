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
 * always a member (the receivers' RTCP goes to the group, as in the elements). A simulcast
 * (ASSP, assp.cc) has one group per stream, a layered session (AVMRC/RMRC/VMRC, avmrc.cc) one
 * per layer, each with its own members. */
#include <chrono>
#include <cstring>
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
/* up to this many nodes ns-3's global routing; beyond, tree_unicast (the same routes in a tree) */
static const size_t TREE_ROUTING_NODES = 200;

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
  ns3::Ipv4Address peer_addr; /* the other end's address on this link */
};

class GroupRouting;

/* Arrivals and drops at one shaped queue, per kind of packet (video RTP, RTCP, TCP, other
 * UDP): the summary line reports them, so a run says who lost what at the bottleneck. */
struct QueueCount {
  SimConfig *cfg;
  uint64_t n[4][2] = {};      /* kind -> arrived, dropped */
  uint64_t mark[4][2] = {};   /* n at the steady mark (layered runs: the paper's steady loss) */
  static const char *kind_name (int k) { return k == 0 ? "video" : k == 1 ? "rtcp" : k == 2 ? "tcp" : "udp"; }
  int kind (Ptr<const QueueDiscItem> item) const
  {
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem> (item);
    if (!ip || ip->GetHeader ().GetProtocol () == 6)
      return 2;
    UdpHeader u;
    item->GetPacket ()->PeekHeader (u);
    uint16_t p = u.GetDestinationPort (), n = (uint16_t) sim_groups (*cfg);
    return p < cfg->port || p >= cfg->port + 2 * n ? 3 : (p - cfg->port) % 2;
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
  std::map<std::string, QueueCount> queues;   /* "A>B" of every shaped direction */
  std::map<std::string, std::map<std::string, uint32_t>> via;  /* router -> node -> port */
  std::map<std::string, std::vector<Ptr<GroupRouting>>> group_routing;  /* router -> stream */
  std::vector<Ipv4Address> subnet;            /* per link */
};

/* The IGMP model's forwarding: on a router, the group goes out of every port whose subtree holds
 * a member host, except the one it came in on. Kept as a member count per port (a join or leave
 * changes one count per router: O(1) at 10 000 receivers, where static multicast routes would
 * need a route per input port listing every output port). Added to the routers' list routing
 * above static and global routing; anything but the group is left to them. */
class GroupRouting : public Ipv4RoutingProtocol
{
 public:
  Ipv4Address group;
  std::vector<int> members;           /* per Ipv4 interface index */
  Ptr<Ipv4Route> RouteOutput (Ptr<Packet>, const Ipv4Header &, Ptr<NetDevice>,
      Socket::SocketErrno &err) override
  {
    err = Socket::ERROR_NOROUTETOHOST;
    return nullptr;
  }
  bool RouteInput (Ptr<const Packet> p, const Ipv4Header &h, Ptr<const NetDevice> idev,
      UnicastForwardCallback, MulticastForwardCallback mcb, LocalDeliverCallback,
      ErrorCallback) override
  {
    if (h.GetDestination () != group)
      return false;
    uint32_t iif = ipv4_->GetInterfaceForDevice (idev);
    Ptr<Ipv4MulticastRoute> r = Create<Ipv4MulticastRoute> ();
    r->SetGroup (group);
    r->SetOrigin (h.GetSource ());
    r->SetParent (iif);
    bool any = false;
    for (uint32_t i = 0; i < members.size (); i++)
      if (i != iif && members[i] > 0) {
        r->SetOutputTtl (i, Ipv4MulticastRoute::MAX_TTL - 1);
        any = true;
      }
    if (any)
      mcb (r, p, h);
    return true;                      /* no member beyond: the router drops it */
  }
  void NotifyInterfaceUp (uint32_t) override {}
  void NotifyInterfaceDown (uint32_t) override {}
  void NotifyAddAddress (uint32_t, Ipv4InterfaceAddress) override {}
  void NotifyRemoveAddress (uint32_t, Ipv4InterfaceAddress) override {}
  void SetIpv4 (Ptr<Ipv4> ipv4) override { ipv4_ = ipv4; }
  void PrintRoutingTable (Ptr<OutputStreamWrapper>, Time::Unit) const override {}

 private:
  Ptr<Ipv4> ipv4_;
};

/* For every router, the port (Ipv4 interface) its tree path to each node leaves by. */
static void
tree_ports (World &w)
{
  for (auto &[name, router] : w.is_router) {
    if (!router)
      continue;
    std::map<std::string, uint32_t> &out = w.via[name];
    std::vector<std::pair<std::string, uint32_t>> todo;
    for (auto &p : w.ports[name])
      todo.emplace_back (p.peer, p.iface);
    std::set<std::string> seen {name};
    while (!todo.empty ()) {
      auto [x, port] = todo.back ();
      todo.pop_back ();
      if (!seen.insert (x).second)
        continue;
      out[x] = port;
      for (auto &p : w.ports[x])
        todo.emplace_back (p.peer, port);
    }
  }
}

static void
membership (World *w, std::string host, int delta, uint32_t stream)
{
  for (auto &[name, grs] : w->group_routing) {
    auto it = w->via[name].find (host);
    if (it != w->via[name].end ())
      grs.at (stream)->members[it->second] += delta;
  }
}

/* Unicast without global routing (whose tables grow as nodes squared: 10 000 receivers): hosts
 * send everything to their one neighbour, routers route each link's subnet by the tree; links
 * that lead only to a [[receivers]] host carry no unicast and get no route. */
static void
tree_unicast (World &w)
{
  Ipv4StaticRoutingHelper h;
  std::set<std::string> endpoints {w.cfg.sender};
  for (auto &f : w.cfg.flows) {
    endpoints.insert (f.src);
    endpoints.insert (f.dst);
  }
  for (auto &[name, router] : w.is_router) {
    Ptr<Ipv4StaticRouting> sr = h.GetStaticRouting (w.node[name]->GetObject<Ipv4> ());
    if (!router) {
      if (w.ports[name].size () != 1)
        NS_FATAL_ERROR ("host " << name << ": tree routing needs hosts with one link");
      sr->SetDefaultRoute (w.ports[name][0].peer_addr, w.ports[name][0].iface);
      continue;
    }
    for (size_t li = 0; li < w.cfg.links.size (); li++) {
      const SimLink &l = w.cfg.links[li];
      if (l.a == name || l.b == name)
        continue;                       /* on-link */
      bool wanted = (w.is_router[l.a] || endpoints.count (l.a))
          && (w.is_router[l.b] || endpoints.count (l.b));
      if (!wanted)
        continue;
      uint32_t port = w.via[name][l.a];
      Ipv4Address gw;
      for (auto &p : w.ports[name])
        if (p.iface == port)
          gw = p.peer_addr;
      sr->AddNetworkRouteTo (w.subnet[li], Ipv4Mask ("255.255.255.0"), gw, port);
    }
  }
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
    w.subnet.push_back (Ipv4Address (base));
    Ipv4InterfaceContainer ifs = ip.Assign (d);
    const std::string ends[2] = {l.a, l.b};
    for (int k = 0; k < 2; k++) {
      w.ports[ends[k]].push_back ({ifs.Get (k).second, ends[1 - k], ifs.GetAddress (1 - k)});
      if (!w.addr.count (ends[k]))
        w.addr[ends[k]] = ifs.GetAddress (k);
    }
  }
}

/* the competing flows (flows.cc), each with its sink */
static void
add_flows (World &w, const std::string &run)
{
  for (auto &f : w.cfg.flows) {
    bool tcp = f.kind.rfind ("tcp", 0) == 0;
    Ptr<FlowSink> sink = Create<FlowSink> (w.cfg, tcp, f.port, run + "/flows/" + f.name + ".csv");
    w.node[f.dst]->AddApplication (sink);
    sink->SetStartTime (Seconds (0));
    sink->SetStopTime (Seconds (w.cfg.duration_s));
    Ptr<FlowSource> src = Create<FlowSource> (f, w.addr[f.dst]);
    w.node[f.src]->AddApplication (src);
    src->SetStartTime (Seconds (0));
    src->SetStopTime (Seconds (w.cfg.duration_s));
  }
}

/* "queues": arrived and dropped per kind over the run, or since the steady mark */
static void
print_queues (World &w, bool since_mark = false)
{
  printf (since_mark ? "\"queues_steady\": {" : "\"queues\": {");
  const char *sep = "";
  for (auto &[name, qc] : w.queues) {
    printf ("%s\"%s\": {", sep, name.c_str ());
    for (int k = 0; k < 4; k++)
      printf ("%s\"%s\": [%llu, %llu]", k ? ", " : "", QueueCount::kind_name (k),
          (unsigned long long) (qc.n[k][0] - (since_mark ? qc.mark[k][0] : 0)),
          (unsigned long long) (qc.n[k][1] - (since_mark ? qc.mark[k][1] : 0)));
    printf ("}");
    sep = ", ";
  }
  printf ("}");
}

/* A layered session (avmrc.cc): the server on the sender's host, each receiver joining and
 * leaving the layers' groups itself; no RTCP. Runs it and prints the summary line. */
static int
run_layered (World &w, const amcc_protocol *proto, const std::string &run,
    std::chrono::steady_clock::time_point wall0)
{
  SimConfig &cfg = w.cfg;
  Ptr<LayeredSender> snd = Create<LayeredSender> (cfg, run);
  w.node[cfg.sender]->AddApplication (snd);
  snd->SetStartTime (Seconds (0));
  snd->SetStopTime (Seconds (cfg.duration_s));
  LayeredReceiver::Membership igmp = [&w] (const std::string &host, uint32_t layer, int delta,
      double after_s) {
    Simulator::Schedule (Seconds (after_s), &membership, &w, host, delta, layer);
  };
  std::vector<Ptr<LayeredReceiver>> rxs;
  for (auto &r : cfg.receivers) {
    if (r.trace)
      std::filesystem::create_directories (run + "/rx-" + r.name);
    Ptr<LayeredReceiver> rx = Create<LayeredReceiver> (cfg, proto, r, run, igmp);
    w.node[r.host]->AddApplication (rx);
    rx->SetStartTime (Seconds (r.join_s));
    rx->SetStopTime (Seconds (std::min (r.leave_s, cfg.duration_s)));
    rxs.push_back (rx);
  }
  add_flows (w, run);
  /* papers/003 §5: steady-state loss is what the bottleneck drops of the session's packets once
   * the clients are past start-up, joined layers or not (a layer left but still forwarded while
   * the leave propagates fills the queue too); the receivers count only the layers they hold */
  Simulator::Schedule (Seconds (cfg.layers.steady_s), [&w] () {
    for (auto &[name, qc] : w.queues)
      memcpy (qc.mark, qc.n, sizeof qc.n);
  });
  Simulator::Stop (Seconds (cfg.duration_s + 0.001));
  Simulator::Run ();
  double wall_s = std::chrono::duration<double> (std::chrono::steady_clock::now () - wall0)
      .count ();
  printf ("{\"protocol\": \"%s\", \"sim_s\": %.3f, \"wall_s\": %.3f, \"wall_per_sim_s\": %.5f, "
      "\"layers\": %u, \"packets_sent\": %llu, \"receivers\": {", cfg.protocol.c_str (),
      cfg.duration_s, wall_s, wall_s / cfg.duration_s, cfg.layers.channels,
      (unsigned long long) snd->packets_sent);
  for (size_t i = 0; i < rxs.size (); i++)
    printf ("%s\"%s\": {\"packets\": %llu, \"changes\": %llu, \"after_leave\": %llu, "
        "\"final_layers\": %u}", i ? ", " : "", cfg.receivers[i].name.c_str (),
        (unsigned long long) rxs[i]->packets, (unsigned long long) rxs[i]->changes,
        (unsigned long long) rxs[i]->after_leave, rxs[i]->wanted);
  printf ("}, ");
  print_queues (w);
  printf (", ");
  print_queues (w, true);
  printf (", \"routing\": \"%s\", \"errors\": false}\n",
      cfg.nodes.size () <= TREE_ROUTING_NODES ? "global" : "tree");
  Simulator::Destroy ();
  return 0;
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
  bool layered = proto && proto->max_layers > 0;
  if (layered != (cfg.layers.channels > 0)
      || (layered && cfg.layers.channels > proto->max_layers)) {
    fprintf (stderr, "amcast-sim: protocol '%s' %s\n", cfg.protocol.c_str (), layered
        ? "is layered: it needs a 'layers' record of at most its layers" : "is not layered");
    return 2;
  }
  size_t nstreams = sim_groups (cfg);
  if (!proto || !proto->receiver || (!layered && (!proto->sender
      || proto->max_streams < nstreams || (proto->max_streams > 1 && cfg.streams.empty ())))) {
    fprintf (stderr, "amcast-sim: protocol '%s' is not a lib/cc protocol of %zu stream(s)\n",
        cfg.protocol.c_str (), nstreams);
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
  tree_ports (w);
  if (cfg.nodes.size () <= TREE_ROUTING_NODES)
    Ipv4GlobalRoutingHelper::PopulateRoutingTables ();
  else
    tree_unicast (w);
  Ipv4StaticRoutingHelper mr;
  for (auto &[name, router] : w.is_router)
    if (!router && !w.ports[name].empty ())     /* hosts send the group out of their link */
      mr.SetDefaultMulticastRoute (w.node[name],
          w.node[name]->GetObject<Ipv4> ()->GetNetDevice (w.ports[name][0].iface));
  for (auto &[name, router] : w.is_router) {
    if (!router)
      continue;
    Ptr<Ipv4> ip4 = w.node[name]->GetObject<Ipv4> ();
    for (uint32_t k = 0; k < nstreams; k++) {
      Ptr<GroupRouting> gr = CreateObject<GroupRouting> ();
      gr->group = sim_group (cfg, k);
      gr->members.assign (ip4->GetNInterfaces (), 0);
      DynamicCast<Ipv4ListRouting> (ip4->GetRoutingProtocol ())->AddRoutingProtocol (gr, 100);
      w.group_routing[name].push_back (gr);
    }
  }
  for (uint32_t k = 0; k < nstreams; k++)
    membership (&w, cfg.sender, 1, k);

  namespace fs = std::filesystem;
  fs::create_directories (run + "/sender");
  fs::create_directories (run + "/flows");
  if (layered) {
    fs::create_directories (run + "/logs");
    return run_layered (w, proto, run, wall0);
  }
  std::vector<Ptr<VideoSender>> snds;
  std::vector<amcc_sender *> ctls;
  for (uint32_t k = 0; k < nstreams; k++) {
    int stream = cfg.streams.empty () ? -1 : (int) k;
    if (stream >= 0)
      fs::create_directories (run + "/sender/stream" + std::to_string (k));
    snds.push_back (Create<VideoSender> (cfg, proto, run, stream));
    w.node[cfg.sender]->AddApplication (snds.back ());
    snds.back ()->SetStartTime (Seconds (0));
    snds.back ()->SetStopTime (Seconds (cfg.duration_s));
    ctls.push_back (snds.back ()->controller ());
  }
  if (!cfg.streams.empty () && amcc_sender_group (ctls.data (), ctls.size ()) != AMCC_OK)
    NS_FATAL_ERROR ("amcc_sender_group refused the " << ctls.size () << " streams");
  Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable> ();
  std::vector<Ptr<Application>> rxs;
  std::vector<uint32_t> ssrcs;
  /* a simulcast receiver joins and leaves its streams' groups itself */
  AsspReceiver::Membership igmp = [&w] (const std::string &host, uint32_t stream, int delta,
      double after_s) {
    Simulator::Schedule (Seconds (after_s), &membership, &w, host, delta, stream);
  };
  for (auto &r : cfg.receivers) {
    if (r.trace)
      fs::create_directories (run + "/rx-" + r.name);
    ssrcs.push_back ((uint32_t) u->GetInteger (1, 0xfffffffe));
    Ptr<Application> rx;
    if (cfg.streams.empty ())
      rx = Create<VideoReceiver> (cfg, proto, r, ssrcs.back (), run);
    else
      rx = Create<AsspReceiver> (cfg, proto, r, ssrcs.back (), run, igmp);
    w.node[r.host]->AddApplication (rx);
    double leave = std::min (r.leave_s, cfg.duration_s);
    rx->SetStartTime (Seconds (r.join_s));
    rx->SetStopTime (Seconds (leave));
    if (cfg.streams.empty ()) {
      Simulator::Schedule (Seconds (r.join_s + cfg.join_latency_s), &membership, &w, r.host, 1,
          0u);
      if (leave < cfg.duration_s)
        Simulator::Schedule (Seconds (leave + cfg.leave_latency_s), &membership, &w, r.host, -1,
            0u);
    }
    rxs.push_back (rx);
  }
  add_flows (w, run);
  Simulator::Stop (Seconds (cfg.duration_s + 0.001));
  Simulator::Run ();
  double wall_s = std::chrono::duration<double> (std::chrono::steady_clock::now () - wall0).count ();
  uint64_t sent = 0, rtcp_in = 0, taken = 0, bad = 0, keys = 0;
  for (auto &s : snds) {
    sent += s->packets_sent;
    rtcp_in += s->rtcp_in;
    taken += s->app_taken;
    bad += s->app_bad;
    keys += s->key_forwarded;
  }
  Ptr<VideoSender> snd = snds[0];
  printf ("{\"protocol\": \"%s\", \"sim_s\": %.3f, \"wall_s\": %.3f, \"wall_per_sim_s\": %.5f, "
      "\"streams\": %zu, \"packets_sent\": %llu, \"rtcp_in\": %llu, \"app_taken\": %llu, "
      "\"app_malformed\": %llu, \"key_frames_forced\": %llu, \"receivers\": {",
      cfg.protocol.c_str (), cfg.duration_s, wall_s, wall_s / cfg.duration_s, cfg.streams.size (),
      (unsigned long long) sent, (unsigned long long) rtcp_in, (unsigned long long) taken,
      (unsigned long long) bad, (unsigned long long) keys);
  /* heard: the reports the sender (stream 0's) got from it, the first, the longest gap */
  for (size_t i = 0; i < rxs.size (); i++) {
    VideoSender::Heard hd;
    auto it = snd->heard.find (ssrcs[i]);
    if (it != snd->heard.end ())
      hd = it->second;
    uint64_t pk, rep;
    char extra[160] = "";
    if (cfg.streams.empty ()) {
      Ptr<VideoReceiver> r = DynamicCast<VideoReceiver> (rxs[i]);
      pk = r->packets;
      rep = r->reports_sent;
    } else {                          /* and what reached it of streams it had left */
      Ptr<AsspReceiver> r = DynamicCast<AsspReceiver> (rxs[i]);
      pk = r->packets;
      rep = r->reports_sent;
      snprintf (extra, sizeof extra, ", \"switches\": %llu, \"stray\": %llu, "
          "\"stray_never_joined\": %llu, \"stray_after_leave_max_s\": %.3f",
          (unsigned long long) r->switches, (unsigned long long) r->stray,
          (unsigned long long) r->stray_never, r->stray_after_leave_s);
    }
    printf ("%s\"%s\": {\"packets\": %llu, \"reports\": %llu, \"heard\": %llu, "
        "\"first_heard_s\": %.3f, \"last_heard_s\": %.3f, \"max_gap_s\": %.3f%s}",
        i ? ", " : "", cfg.receivers[i].name.c_str (), (unsigned long long) pk,
        (unsigned long long) rep, (unsigned long long) hd.n, hd.first, hd.last, hd.max_gap, extra);
  }
  printf ("}, \"feedback_per_s\": [");
  for (size_t i = 0; i < snd->fb_per_s.size (); i++)
    printf ("%s%u", i ? ", " : "", snd->fb_per_s[i]);
  printf ("], \"feedback_app_per_s\": [");
  for (size_t i = 0; i < snd->fb_app_per_s.size (); i++)
    printf ("%s%u", i ? ", " : "", snd->fb_app_per_s[i]);
  printf ("], ");
  print_queues (w);
  printf (", \"routing\": \"%s\", \"errors\": %s}\n",
      cfg.nodes.size () <= TREE_ROUTING_NODES ? "global" : "tree", bad ? "true" : "false");
  Simulator::Destroy ();
  return 0;
}
