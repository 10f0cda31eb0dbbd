/* rmanp-sim.cc - ns-3 program of RMANP (docs/results.md "RMANP in sim"; tools/sim/rmanp_sim.py
 * writes its config from a TOML file and reads what it leaves):
 *
 *   duration S | seed N | sample S | file BYTES | relay_api role|controller
 *   params RM_BPS IS IN DA DR PACKET_BYTES CACHE QUEUE
 *   node NAME host|router
 *   link A B RATE_BPS DELAY_MS QUEUE_PACKETS TRACE LOSS_PCT   (both directions alike)
 *   source NAME NODE | relay NAME NODE PARENT | receiver NAME NODE PARENT
 *   background NAME SRC DST IP_BYTES START:END:BYTES_PER_S ...
 *
 * The topology must be a tree (one path between two nodes, as papers/004's Tiers graph on the
 * session's paths). Links: point-to-point, the data rate counted on IP packets as ns-2 does (the
 * 2-byte PPP header is added to the rate), a drop-tail queue of QUEUE packets waiting on each
 * sending end (queue disc QUEUE - 1 + device queue 1). Multicast: each member with children
 * (source, relays) sends on its own group; routers forward it toward that member's children
 * only (GroupTree below, static per group: a session without joins and leaves). Control goes up
 * by unicast (global routing). Outputs in RUN: nodes.csv (per member every `sample` s),
 * links.csv (traced link directions), delay-NAME.csv (per packet, every receiver), and one JSON
 * summary line on stdout. */
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "rmanp-sim.h"

using namespace ns3;

static const uint16_t BG_PORT = 9;

static bool
read_cfg (const char *path, RmanpCfg &c)
{
  std::ifstream in (path);
  std::map<std::string, int> idx;
  std::string line;
  int ln = 0;
  amcc_rmanp_params_init (&c.p);
  if (!in) {
    fprintf (stderr, "rmanp-sim: cannot read %s\n", path);
    return false;
  }
  while (std::getline (in, line)) {
    ln++;
    std::istringstream s (line);
    std::string k, parent;
    bool ok = true;
    if (!(s >> k) || k[0] == '#')
      continue;
    if (k == "duration")
      ok = !!(s >> c.duration_s);
    else if (k == "seed")
      ok = !!(s >> c.seed);
    else if (k == "sample")
      ok = !!(s >> c.sample_s) && c.sample_s > 0;
    else if (k == "file")
      ok = !!(s >> c.file_bytes);
    else if (k == "relay_api") {
      std::string api;
      ok = !!(s >> api) && (api == "role" || api == "controller");
      c.relay_controller = api == "controller";
    }
    else if (k == "params")
      ok = !!(s >> c.p.rm_bps >> c.p.is >> c.p.in >> c.p.da >> c.p.dr >> c.p.packet_bytes
          >> c.p.cache_packets >> c.p.queue_packets)
          && c.p.packet_bytes <= RMANP_SIM_MAX_PACKET;   /* rmanp-node.cc's receive buffer */
    else if (k == "node") {
      std::string n, kind;
      ok = !!(s >> n >> kind) && (kind == "host" || kind == "router");
      c.nodes.emplace_back (n, kind == "router");
    } else if (k == "link") {
      RmanpCfg::Link l;
      int tr = 0;
      ok = !!(s >> l.a >> l.b >> l.bps >> l.delay_ms >> l.queue >> tr >> l.loss_pct) && l.bps > 0
          && l.queue >= 2 && l.loss_pct >= 0 && l.loss_pct < 100;
      l.trace = tr;
      c.links.push_back (l);
    } else if (k == "source" || k == "relay" || k == "receiver") {
      RmanpCfg::Member m;
      m.role = k == "source" ? RMANP_SOURCE : k == "relay" ? RMANP_RELAY : RMANP_RECEIVER;
      ok = !!(s >> m.name >> m.node) && (k == "source") == c.members.empty ()
          && !idx.count (m.name);                          /* names are unique */
      m.parent = -1;
      if (ok && k != "source")
        ok = (s >> parent) && idx.count (parent) && c.members[idx[parent]].role != RMANP_RECEIVER;
      if (ok && k != "source")
        m.parent = idx[parent];
      idx[m.name] = (int) c.members.size ();
      c.members.push_back (m);
    } else if (k == "background") {
      RmanpCfg::Bg b;
      std::string st;
      ok = !!(s >> b.name >> b.src >> b.dst >> b.bytes) && b.bytes >= 28;
      while (ok && s >> st) {
        std::array<double, 3> x;
        ok = sscanf (st.c_str (), "%lf:%lf:%lf", &x[0], &x[1], &x[2]) == 3;
        b.steps.push_back (x);
      }
      c.bgs.push_back (b);
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf (stderr, "rmanp-sim: %s:%d: bad line: %s\n", path, ln, line.c_str ());
      return false;
    }
  }
  if (c.members.empty () || c.duration_s <= 0 || amcc_rmanp_params_check (&c.p) != AMCC_OK) {
    fprintf (stderr, "rmanp-sim: %s: no source, no duration or invalid params\n", path);
    return false;
  }
  return true;
}

/* A group's forwarding on one router: out of every interface toward the group's receivers
 * (static: the session's tree does not change), never back where it came from. */
class GroupTree : public Ipv4RoutingProtocol
{
 public:
  std::map<Ipv4Address, std::set<uint32_t>> out;
  Ptr<Ipv4Route> RouteOutput (Ptr<Packet>, const Ipv4Header &h, Ptr<NetDevice> oif,
      Socket::SocketErrno &err) override
  {
    if (!h.GetDestination ().IsMulticast () || !oif) {
      err = Socket::ERROR_NOROUTETOHOST;
      return nullptr;
    }
    Ptr<Ipv4Route> r = Create<Ipv4Route> ();  /* a member's copy out of one interface */
    r->SetDestination (h.GetDestination ());
    r->SetGateway (Ipv4Address::GetAny ());
    r->SetOutputDevice (oif);
    r->SetSource (ipv4_->GetAddress (ipv4_->GetInterfaceForDevice (oif), 0).GetLocal ());
    err = Socket::ERROR_NOTERROR;
    return r;
  }
  bool RouteInput (Ptr<const Packet> p, const Ipv4Header &h, Ptr<const NetDevice> idev,
      UnicastForwardCallback, MulticastForwardCallback mcb, LocalDeliverCallback,
      ErrorCallback) override
  {
    auto it = out.find (h.GetDestination ());
    if (it == out.end ())
      return h.GetDestination ().IsMulticast ();        /* not ours to forward: dropped */
    uint32_t iif = ipv4_->GetInterfaceForDevice (idev);
    Ptr<Ipv4MulticastRoute> r = Create<Ipv4MulticastRoute> ();
    r->SetGroup (h.GetDestination ());
    r->SetOrigin (h.GetSource ());
    r->SetParent (iif);
    bool any = false;
    for (uint32_t i : it->second)
      if (i != iif) {
        r->SetOutputTtl (i, Ipv4MulticastRoute::MAX_TTL - 1);
        any = true;
      }
    if (any)
      mcb (r, p, h);
    return true;
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

/* Bytes sent and packets dropped at one link direction's queue, per kind: RMANP data, RMANP
 * control, background (cumulative; links.csv samples them). */
struct LinkCount {
  std::string name;
  uint64_t bytes[3] = {}, drops[3] = {}, arrived[3] = {};
  static int kind (Ptr<const QueueDiscItem> item)
  {
    UdpHeader u;
    item->GetPacket ()->PeekHeader (u);
    uint16_t port = u.GetDestinationPort ();
    return port == BG_PORT ? 2 : port == RMANP_CTL_PORT ? 1 : 0;
  }
  void Enq (Ptr<const QueueDiscItem> i) { arrived[kind (i)]++; }
  void Deq (Ptr<const QueueDiscItem> i) { bytes[kind (i)] += i->GetSize (); }
  void Drop (Ptr<const QueueDiscItem> i, const char *)
  {
    arrived[kind (i)]++;
    drops[kind (i)]++;
  }
};

/* Constant-rate UDP of IP_BYTES packets, the rate changing at the given steps. */
class Background : public Application
{
 public:
  Background (const RmanpCfg::Bg &b, Ipv4Address dst) : b_ (b), dst_ (dst) {}
  uint64_t sent = 0;

 private:
  void StartApplication () override
  {
    s_ = Socket::CreateSocket (GetNode (), UdpSocketFactory::GetTypeId ());
    s_->Bind ();
    Next ();
  }
  void StopApplication () override { Simulator::Cancel (ev_); }
  void Next ()
  {
    double t = Simulator::Now ().GetSeconds (), rate = 0, until = 1e18;
    for (auto &st : b_.steps) {
      if (t >= st[0] && t < st[1])
        rate = st[2], until = st[1];
      else if (st[0] > t && st[0] < until && rate == 0)
        until = st[0];
    }
    if (rate > 0) {
      s_->SendTo (Create<Packet> (b_.bytes - 28), 0, InetSocketAddress (dst_, BG_PORT));
      sent++;
      ev_ = Simulator::Schedule (Seconds (b_.bytes / rate), &Background::Next, this);
    } else if (until < 1e17) {
      ev_ = Simulator::Schedule (Seconds (until - t), &Background::Next, this);
    }
  }
  RmanpCfg::Bg b_;
  Ipv4Address dst_;
  Ptr<Socket> s_;
  EventId ev_;
};

struct Sim {
  RmanpCfg cfg;
  RmanpShared shared;
  std::map<std::string, Ptr<Node>> node;
  std::map<std::string, std::vector<std::pair<std::string, uint32_t>>> adj;  /* peer, iface */
  std::map<std::string, Ipv4Address> addr;
  std::map<std::string, Ptr<GroupTree>> tree;
  std::vector<Ptr<RmanpNode>> apps;
  std::vector<LinkCount *> counts;
  FILE *nodes_csv = nullptr, *links_csv = nullptr;
};

static void
build_links (Sim &w)
{
  Ipv4AddressHelper ip;
  int subnet = 0;
  for (auto &l : w.cfg.links) {
    PointToPointHelper p2p;
    p2p.SetQueue ("ns3::DropTailQueue<Packet>", "MaxSize", StringValue ("1p"));
    p2p.SetChannelAttribute ("Delay", TimeValue (MicroSeconds ((int64_t) (l.delay_ms * 1e3))));
    /* ns-2 counts the IP packet: a 1057-byte packet takes 1057 x 8 / rate, PPP's 2 bytes too */
    p2p.SetDeviceAttribute ("DataRate", DataRateValue (DataRate ((uint64_t) (l.bps * 1059.0 / 1057.0))));
    NetDeviceContainer d = p2p.Install (w.node[l.a], w.node[l.b]);
    TrafficControlHelper tc;
    tc.SetRootQueueDisc ("ns3::FifoQueueDisc", "MaxSize",
        QueueSizeValue (QueueSize (std::to_string (l.queue - 1) + "p")));
    QueueDiscContainer qd = tc.Install (d);
    for (int k = 0; l.loss_pct > 0 && k < 2; k++) {    /* random loss, each direction */
      Ptr<RateErrorModel> em = CreateObject<RateErrorModel> ();
      em->SetAttribute ("ErrorRate", DoubleValue (l.loss_pct / 100.0));
      em->SetAttribute ("ErrorUnit", StringValue ("ERROR_UNIT_PACKET"));
      d.Get (k)->SetAttribute ("ReceiveErrorModel", PointerValue (em));
    }
    for (int k = 0; k < 2; k++) {
      LinkCount *lc = new LinkCount;
      lc->name = (k ? l.b : l.a) + ">" + (k ? l.a : l.b);
      if (l.trace)
        w.counts.push_back (lc);
      qd.Get (k)->TraceConnectWithoutContext ("Enqueue", MakeCallback (&LinkCount::Enq, lc));
      qd.Get (k)->TraceConnectWithoutContext ("Dequeue", MakeCallback (&LinkCount::Deq, lc));
      qd.Get (k)->TraceConnectWithoutContext ("DropBeforeEnqueue", MakeCallback (&LinkCount::Drop, lc));
    }
    char base[32];
    snprintf (base, sizeof base, "10.%d.%d.0", 1 + subnet / 256, subnet % 256);
    subnet++;
    ip.SetBase (base, "255.255.255.0");
    Ipv4InterfaceContainer ifs = ip.Assign (d);
    w.adj[l.a].emplace_back (l.b, ifs.Get (0).second);
    w.adj[l.b].emplace_back (l.a, ifs.Get (1).second);
    if (!w.addr.count (l.a))
      w.addr[l.a] = ifs.GetAddress (0);
    if (!w.addr.count (l.b))
      w.addr[l.b] = ifs.GetAddress (1);
  }
}

/* The path from a to b as (node, interface it leaves by) hops; empty if unreachable. */
static std::vector<std::pair<std::string, uint32_t>>
path (Sim &w, const std::string &a, const std::string &b)
{
  std::map<std::string, std::pair<std::string, uint32_t>> prev;   /* node -> (from, iface) */
  std::vector<std::string> todo {a};
  prev[a] = {"", 0};
  for (size_t i = 0; i < todo.size (); i++)
    for (auto &[peer, iface] : w.adj[todo[i]])
      if (!prev.count (peer)) {
        prev[peer] = {todo[i], iface};
        todo.push_back (peer);
      }
  std::vector<std::pair<std::string, uint32_t>> hops;
  if (!prev.count (b))
    return hops;
  for (std::string x = b; x != a; x = prev[x].first)
    hops.insert (hops.begin (), prev[x]);
  return hops;
}

/* Groups: one per member with children; its routers forward toward those children only. */
static void
build_groups (Sim &w)
{
  for (auto &[name, router] : w.cfg.nodes) {
    Ptr<Ipv4> ip4 = w.node[name]->GetObject<Ipv4> ();
    Ptr<GroupTree> gt = CreateObject<GroupTree> ();
    DynamicCast<Ipv4ListRouting> (ip4->GetRoutingProtocol ())->AddRoutingProtocol (gt, 100);
    w.tree[name] = gt;
  }
  for (size_t m = 0; m < w.cfg.members.size (); m++) {
    char g[32];
    snprintf (g, sizeof g, "239.2.%zu.%zu", m / 250, 1 + m % 250);
    Ptr<RmanpNode> app = w.apps[m];
    app->group = Ipv4Address (g);
    app->group_port = (uint16_t) (RMANP_DATA_PORT0 + m);
    std::set<uint32_t> first;
    for (size_t c = 0; c < w.cfg.members.size (); c++) {
      if (w.cfg.members[c].parent != (int) m)
        continue;
      const std::string &from = w.cfg.members[m].node, &to = w.cfg.members[c].node;
      auto hops = path (w, from, to);
      if (hops.empty ())
        NS_FATAL_ERROR ("rmanp-sim: no path from " << from << " to " << to);
      first.insert (hops[0].second);
      for (size_t h = 1; h < hops.size (); h++)
        w.tree[hops[h].first]->out[app->group].insert (hops[h].second);
      w.apps[c]->in_port = app->group_port;
      w.apps[c]->parent_addr = w.addr[from];
    }
    Ptr<Ipv4> ip4 = w.node[w.cfg.members[m].node]->GetObject<Ipv4> ();
    for (uint32_t i : first)
      app->down_devs.push_back (ip4->GetNetDevice (i));
  }
}

static void
sample (Sim *w)
{
  double t = Simulator::Now ().GetSeconds ();
  for (size_t m = 0; m < w->apps.size (); m++) {
    RmanpNode *a = PeekPointer (w->apps[m]);
    struct amcc_rmanp_stats st;
    a->Stats (&st);
    uint64_t bytes = a->role == RMANP_RECEIVER ? a->got : a->bytes_down;
    fprintf (w->nodes_csv, "%.3f,%s,%d,%llu,%.0f,%u,%u,%u,%u,%llu,%llu\n", t,
        w->cfg.members[m].name.c_str (), (int) a->role, (unsigned long long) bytes, st.rate_bps,
        st.queued, a->held_now, st.repair_queued, st.acked,
        (unsigned long long) st.retransmitted, (unsigned long long) st.reactions);
  }
  for (auto *lc : w->counts)
    fprintf (w->links_csv, "%.3f,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", t,
        lc->name.c_str (), (unsigned long long) lc->bytes[0], (unsigned long long) lc->bytes[1],
        (unsigned long long) lc->bytes[2], (unsigned long long) lc->arrived[0],
        (unsigned long long) lc->arrived[1], (unsigned long long) lc->arrived[2],
        (unsigned long long) lc->drops[0], (unsigned long long) lc->drops[1],
        (unsigned long long) lc->drops[2]);
  if (t + w->cfg.sample_s <= w->cfg.duration_s + 1e-9)
    Simulator::Schedule (Seconds (w->cfg.sample_s), &sample, w);
}

static void
summary (Sim &w, double wall_s, const std::string &run)
{
  const RmanpCfg &c = w.cfg;
  printf ("{\"protocol\": \"rmanp\", \"sim_s\": %.3f, \"wall_s\": %.3f, \"file_bytes\": %llu, "
      "\"packets\": %zu, \"members\": {", c.duration_s, wall_s,
      (unsigned long long) c.file_bytes, w.shared.sent_ns.size ());
  for (size_t m = 0; m < w.apps.size (); m++) {
    RmanpNode *a = PeekPointer (w.apps[m]);
    struct amcc_rmanp_stats st;
    a->Integrate ();                          /* the integrals up to the end */
    a->Stats (&st);
    printf ("%s\"%s\": {\"role\": \"%s\", \"node\": \"%s\", \"done_s\": %.3f, \"stalls\": %llu, "
        "\"decode_errors\": %llu, \"malformed\": %llu, \"retransmitted\": %llu, \"reactions\": "
        "%llu, \"ci_sent\": %llu, \"nacks_sent\": %llu, \"gaps\": %llu, \"excluded\": %u",
        m ? ", " : "", c.members[m].name.c_str (),
        a->role == RMANP_SOURCE ? "source" : a->role == RMANP_RELAY ? "relay" : "receiver",
        c.members[m].node.c_str (), a->done_s, (unsigned long long) a->stalls,
        (unsigned long long) a->decode_errors, (unsigned long long) st.malformed,
        (unsigned long long) st.retransmitted, (unsigned long long) st.reactions,
        (unsigned long long) st.ci_sent, (unsigned long long) st.nacks_sent,
        (unsigned long long) st.gaps, st.excluded);
    if (a->role == RMANP_SOURCE)
      printf (", \"written\": %llu, \"sent\": %llu, \"ack_timeouts\": %llu, \"rate_bps\": %.0f",
          (unsigned long long) a->written, (unsigned long long) st.sent,
          (unsigned long long) st.ack_timeouts, st.rate_bps);
    if (a->role == RMANP_RELAY)
      printf (", \"queue_mean\": %.3f, \"queue_peak\": %u, \"queue_cap\": %u, \"held_mean\": "
          "%.3f, \"held_peak\": %u, \"cache_cap\": %u, \"overflows\": %llu, \"forwarded\": %llu, "
          "\"memory\": %zu", a->q_area / c.duration_s, st.queue_peak, c.p.queue_packets,
          a->held_area / c.duration_s, a->held_peak, c.p.cache_packets,
          (unsigned long long) st.overflows, (unsigned long long) st.forwarded, a->Memory ());
    if (a->role == RMANP_RECEIVER) {
      /* transit delay per packet: first emission at the source -> first arrival here */
      FILE *f = fopen ((run + "/delay-" + c.members[m].name + ".csv").c_str (), "w");
      double sum = 0, lo = 1e18, hi = 0;
      uint64_t n = 0;
      if (f)
        fprintf (f, "seq,sent_s,delay_ms\n");
      for (size_t q = 0; q < a->arrive_ns.size () && q < w.shared.sent_ns.size (); q++) {
        if (a->arrive_ns[q] < 0 || w.shared.sent_ns[q] < 0)
          continue;
        double d = (a->arrive_ns[q] - w.shared.sent_ns[q]) / 1e6;
        sum += d, n++, lo = std::min (lo, d), hi = std::max (hi, d);
        if (f)
          fprintf (f, "%zu,%.6f,%.3f\n", q, w.shared.sent_ns[q] / 1e9, d);
      }
      if (f)
        fclose (f);
      printf (", \"got\": %llu, \"bad\": %llu, \"complete\": %s, \"delay_ms\": {\"n\": %llu, "
          "\"mean\": %.3f, \"min\": %.3f, \"max\": %.3f}", (unsigned long long) a->got,
          (unsigned long long) a->bad,
          a->done_s >= 0 && a->got == c.file_bytes && !a->bad ? "true" : "false",
          (unsigned long long) n, n ? sum / n : 0.0, n ? lo : 0.0, hi);
    }
    printf ("}");
  }
  printf ("}}\n");
}

int
main (int argc, char **argv)
{
  if (argc != 3) {
    fprintf (stderr, "usage: amcast-sim-rmanp CONFIG RUN_DIR (use `./amcast sim FILE.toml "
        "--protocol rmanp`, docs/results.md \"RMANP in sim\")\n");
    return 2;
  }
  Sim w;
  if (!read_cfg (argv[1], w.cfg))
    return 2;
  std::string run = argv[2];
  auto wall0 = std::chrono::steady_clock::now ();
  RngSeedManager::SetSeed (1);
  RngSeedManager::SetRun (w.cfg.seed);
  InternetStackHelper stack;
  for (auto &[name, router] : w.cfg.nodes) {
    w.node[name] = CreateObject<Node> ();
    stack.Install (w.node[name]);
  }
  for (auto &l : w.cfg.links)
    if (!w.node.count (l.a) || !w.node.count (l.b)) {
      fprintf (stderr, "rmanp-sim: link %s-%s: unknown node\n", l.a.c_str (), l.b.c_str ());
      return 2;
    }
  if (w.cfg.links.size () + 1 != w.cfg.nodes.size ()) {
    fprintf (stderr, "rmanp-sim: %zu nodes, %zu links: not a tree\n", w.cfg.nodes.size (),
        w.cfg.links.size ());
    return 2;
  }
  build_links (w);
  Ipv4GlobalRoutingHelper::PopulateRoutingTables ();
  for (size_t m = 0; m < w.cfg.members.size (); m++) {
    if (!w.node.count (w.cfg.members[m].node)) {
      fprintf (stderr, "rmanp-sim: member %s: unknown node\n", w.cfg.members[m].name.c_str ());
      return 2;
    }
    w.apps.push_back (Create<RmanpNode> (w.cfg, (int) m, &w.shared));
  }
  build_groups (w);
  for (size_t m = 0; m < w.apps.size (); m++) {
    w.node[w.cfg.members[m].node]->AddApplication (w.apps[m]);
    w.apps[m]->SetStartTime (Seconds (0));
    w.apps[m]->SetStopTime (Seconds (w.cfg.duration_s));
  }
  for (auto &b : w.cfg.bgs)
    if (!w.node.count (b.src) || !w.node.count (b.dst)) {
      fprintf (stderr, "rmanp-sim: background %s: unknown node\n", b.name.c_str ());
      return 2;
    }
  for (auto &b : w.cfg.bgs) {
    Ptr<Socket> sink = Socket::CreateSocket (w.node[b.dst], UdpSocketFactory::GetTypeId ());
    sink->Bind (InetSocketAddress (Ipv4Address::GetAny (), BG_PORT));   /* no ICMP back */
    Ptr<Background> bg = Create<Background> (b, w.addr[b.dst]);
    w.node[b.src]->AddApplication (bg);
    bg->SetStartTime (Seconds (0));
    bg->SetStopTime (Seconds (w.cfg.duration_s));
  }
  w.nodes_csv = fopen ((run + "/nodes.csv").c_str (), "w");
  w.links_csv = fopen ((run + "/links.csv").c_str (), "w");
  if (!w.nodes_csv || !w.links_csv) {
    fprintf (stderr, "rmanp-sim: cannot write in %s\n", run.c_str ());
    return 2;
  }
  fprintf (w.nodes_csv, "time_s,name,role,bytes,rate_bps,queued,held,repair_queued,acked,"
      "retransmitted,reactions\n");
  fprintf (w.links_csv, "time_s,link,data_bytes,ctl_bytes,bg_bytes,data_in,ctl_in,bg_in,"
      "data_drops,ctl_drops,bg_drops\n");
  Simulator::Schedule (Seconds (w.cfg.sample_s), &sample, &w);
  Simulator::Stop (Seconds (w.cfg.duration_s));
  Simulator::Run ();
  fclose (w.nodes_csv);
  fclose (w.links_csv);
  double wall_s = std::chrono::duration<double> (std::chrono::steady_clock::now () - wall0).count ();
  summary (w, wall_s, run);
  Simulator::Destroy ();
  return 0;
}
