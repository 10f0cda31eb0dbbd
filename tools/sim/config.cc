/* config.cc - reads the plain scenario file tools/sim/amcast-sim writes (one record per line,
 * space-separated; the testbed's Python parser has already validated the TOML, so this only
 * checks that every line has its fields):
 *
 *   duration S | t0 S | seed N | protocol NAME | group ADDR PORT
 *   video FPS KEY_INT INITIAL_BPS MIN_BPS MAX_BPS RTCP_MS
 *   igmp JOIN_S LEAVE_S
 *   stream MIN_BPS MAX_BPS          (simulcast: one per stream, lowest first)
 *   knee_hold S                     (simulcast receivers' knee_hold; absent: lib/cc's default)
 *   layers CHANNELS B1_BPS FACTOR PERIOD_MS PACKET_SIZE STEADY_S   (a layered session)
 *   unsync_slots                    (layered: each receiver's own add slots, not the flag)
 *   jitter MEAN_MS                  (the delay line's extra delay, 0 = none)
 *   node NAME host|router
 *   link A B RATE_AB RATE_BA QUEUE_AB QUEUE_BA DELAY_AB_MS DELAY_BA_MS LOSS_AB LOSS_BA
 *   sender HOST
 *   receiver NAME HOST JOIN_S LEAVE_S [TRACE]     (TRACE 0: no rd.txt/stats.csv)
 *   flow NAME KIND SRC DST CC RATE_BPS PORT [win=BYTES] [A:B ...]
 *        (TCP: at most BYTES in flight, the file's window_bytes; on-periods in scenario seconds) */
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ns3/simulator.h"
#include "sim.h"

amcc_time
sim_now (const SimConfig &cfg)
{
  return (amcc_time) (cfg.t0 * 1e9) + ns3::Simulator::Now ().GetNanoSeconds ();
}

double
sim_wall (const SimConfig &cfg)
{
  return cfg.t0 + ns3::Simulator::Now ().GetSeconds ();
}

ns3::Ipv4Address
sim_group (const SimConfig &cfg, uint32_t k)
{
  return ns3::Ipv4Address (ns3::Ipv4Address (cfg.group.c_str ()).Get () + k);
}

bool
sim_config_read (const char *path, SimConfig &cfg)
{
  std::ifstream in (path);
  if (!in) {
    fprintf (stderr, "amcast-sim: cannot read %s\n", path);
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline (in, line)) {
    n++;
    std::istringstream s (line);
    std::string k;
    if (!(s >> k) || k[0] == '#')
      continue;
    bool ok = true;
    if (k == "duration")
      ok = !!(s >> cfg.duration_s);
    else if (k == "t0")
      ok = !!(s >> cfg.t0);
    else if (k == "seed")
      ok = !!(s >> cfg.seed);
    else if (k == "protocol")
      ok = !!(s >> cfg.protocol);
    else if (k == "group")
      ok = !!(s >> cfg.group >> cfg.port);
    else if (k == "video")
      ok = !!(s >> cfg.fps >> cfg.key_int >> cfg.initial_bps >> cfg.min_bps >> cfg.max_bps
          >> cfg.rtcp_ms);
    else if (k == "stream") {
      SimStream st;
      ok = !!(s >> st.min_bps >> st.max_bps) && st.min_bps > 0 && st.min_bps < st.max_bps;
      cfg.streams.push_back (st);
    } else if (k == "layers") {
      SimLayers &l = cfg.layers;
      ok = !!(s >> l.channels >> l.b1_bps >> l.factor >> l.period_ms >> l.packet_size
          >> l.steady_s) && l.channels >= 1 && l.channels <= AMCC_AVMRC_MAX_LAYERS
          && l.b1_bps > 0 && l.factor > 1 && l.period_ms > 0 && l.packet_size >= 16;
    } else if (k == "unsync_slots")
      cfg.layers.unsync = true;
    else if (k == "knee_hold")
      ok = !!(s >> cfg.knee_hold_s) && cfg.knee_hold_s >= 0;
    else if (k == "jitter")
      ok = !!(s >> cfg.delay_jitter_ms);
    else if (k == "igmp")
      ok = !!(s >> cfg.join_latency_s >> cfg.leave_latency_s);
    else if (k == "node") {
      std::string name, kind;
      ok = !!(s >> name >> kind) && (kind == "host" || kind == "router");
      cfg.nodes.emplace_back (name, kind == "router");
    } else if (k == "link") {
      SimLink l;
      ok = !!(s >> l.a >> l.b >> l.rate_bps[0] >> l.rate_bps[1] >> l.queue_bytes[0]
          >> l.queue_bytes[1] >> l.delay_ms[0] >> l.delay_ms[1] >> l.loss_pct[0]
          >> l.loss_pct[1]);
      cfg.links.push_back (l);
    } else if (k == "sender")
      ok = !!(s >> cfg.sender);
    else if (k == "receiver") {
      SimReceiver r;
      ok = !!(s >> r.name >> r.host >> r.join_s >> r.leave_s);
      int trace;
      if (ok && s >> trace)
        r.trace = trace != 0;
      cfg.receivers.push_back (r);
    } else if (k == "flow") {
      SimFlow f;
      ok = !!(s >> f.name >> f.kind >> f.src >> f.dst >> f.cc >> f.rate_bps >> f.port);
      std::string p;
      while (ok && s >> p) {
        if (p.rfind ("win=", 0) == 0) {
          char *end = nullptr;
          unsigned long w = strtoul (p.c_str () + 4, &end, 10);
          ok = end && !*end && p.size () > 4 && w >= 2048 && w <= (1UL << 30);
          f.window = ok ? (uint32_t) w : 0;
          continue;
        }
        size_t c = p.find (':');
        ok = c != std::string::npos;
        if (ok)
          f.on.emplace_back (atof (p.substr (0, c).c_str ()), atof (p.substr (c + 1).c_str ()));
      }
      cfg.flows.push_back (f);
    } else {
      fprintf (stderr, "amcast-sim: %s:%d: unknown record '%s'\n", path, n, k.c_str ());
      return false;
    }
    if (!ok) {
      fprintf (stderr, "amcast-sim: %s:%d: bad '%s' record\n", path, n, k.c_str ());
      return false;
    }
  }
  if (cfg.duration_s <= 0 || cfg.protocol.empty () || cfg.sender.empty () || cfg.fps <= 0
      || cfg.key_int == 0 || cfg.rtcp_ms == 0) {
    fprintf (stderr, "amcast-sim: %s: duration, protocol, sender and video are required\n", path);
    return false;
  }
  return true;
}
