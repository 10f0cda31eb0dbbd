/* rmanp-sim.h - the ns-3 program of RMANP (`./amcast sim FILE --protocol rmanp`, docs/results.md
 * "RMANP in sim"): a source, relays and receivers of papers/004 as ns-3 applications over a routed
 * tree of point-to-point links with drop-tail queues, and a constant-rate background.
 *
 * Contract: an RmanpNode drives lib/cc's RMANP role only through amcc/rmanp.h, with the calls
 * the elements make (gst/rmanpsink, rmanprelay, rmanpsrc: _on_packet, _poll until 0, _next_due,
 * _write/_finish, _read, _get_stats), or a relay through amcc/controller.h's relay table
 * (`relay_api = "controller"`); it never reaches into a role. Every rate, queue and repair
 * decision is lib/cc's; this program only moves packets and counts. */
#ifndef RMANP_SIM_H
#define RMANP_SIM_H

#define RMANP_SIM_MAX_PACKET 2048   /* largest packet_bytes a scenario may set */
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/socket.h"

extern "C" {
#include <amcc/controller.h>
#include <amcc/rmanp.h>
}

static const uint16_t RMANP_CTL_PORT = 7999;      /* CI / NACK / ACK to a parent (unicast) */
static const uint16_t RMANP_DATA_PORT0 = 7000;    /* data of group g on port 7000 + g */

/* The plain config tools/sim/rmanp_sim.py writes from the TOML (rmanp-sim.cc reads it). */
struct RmanpCfg {
  double duration_s = 0, sample_s = 1.0;
  uint64_t seed = 1, file_bytes = 0;
  struct amcc_rmanp_params p;
  /* relays through amcc/controller.h's relay table instead (it takes Rm only: every other
   * parameter is lib/cc's default, and it has no counters: the queue figures are 0) */
  bool relay_controller = false;
  std::vector<std::pair<std::string, bool>> nodes;        /* name, is a router */
  struct Link { std::string a, b; double bps, delay_ms; uint32_t queue; bool trace; double loss_pct; };
  std::vector<Link> links;
  /* the session tree: index 0 is the source; parent = index of the parent member */
  struct Member { std::string name, node; int parent; int role; };
  std::vector<Member> members;
  struct Bg { std::string name, src, dst; uint32_t bytes; std::vector<std::array<double, 3>> steps; };
  std::vector<Bg> bgs;                                    /* steps: start_s end_s bytes/s */
};

/* What the whole session shares: the source's first emission time of each packet (the delay a
 * receiver measures is from it, as papers/004's table 1). */
struct RmanpShared {
  std::vector<int64_t> sent_ns;
};

enum RmanpRole { RMANP_SOURCE = 0, RMANP_RELAY = 1, RMANP_RECEIVER = 2 };

class RmanpNode : public ns3::Application {
 public:
  RmanpNode (const RmanpCfg &cfg, int member, RmanpShared *shared);
  ~RmanpNode () override;
  /* set up before start: the parent's group port and address, and the interfaces (with the
   * group) this member's data goes out of (a copy per interface, as a multicast router does) */
  uint16_t in_port = 0;
  ns3::Ipv4Address parent_addr;
  ns3::Ipv4Address group;
  uint16_t group_port = 0;
  std::vector<ns3::Ptr<ns3::NetDevice>> down_devs;

  /* counters and measurements, read by the sampler and at the end */
  RmanpRole role;
  uint64_t bytes_down = 0, bytes_up = 0, pkts_in = 0, decode_errors = 0, stalls = 0;
  uint64_t got = 0, bad = 0;                  /* receiver: bytes read in order, wrong bytes */
  uint64_t written = 0;                       /* source: bytes the application handed over */
  double done_s = -1;                         /* receiver: all read; source: all ACKed */
  std::vector<int64_t> arrive_ns;             /* receiver: first arrival per seq */
  uint32_t hi = 0;                            /* relay: highest seq heard from the parent */
  bool have_hi = false;
  double q_area = 0, held_area = 0;           /* relay: time integrals (packet x s) */
  uint32_t q_now = 0, held_now = 0, held_peak = 0;
  void Stats (struct amcc_rmanp_stats *st) const;
  void Integrate ();
  size_t Memory () const;

 private:
  void StartApplication () override;
  void StopApplication () override;
  void OnRecv (ns3::Ptr<ns3::Socket> s);
  void Pump ();
  void Feed ();
  void Read ();
  void Send (const uint8_t *b, int n, amcc_rmanp_dir dir);
  int Poll (amcc_time now, uint8_t *b, size_t cap, amcc_rmanp_dir *dir);
  amcc_time NextDue (amcc_time now);

  const RmanpCfg &cfg_;
  int member_;
  RmanpShared *shared_;
  amcc_rmanp_source *src_ = nullptr;
  amcc_rmanp_relay *rel_ = nullptr;
  amcc_relay *crel_ = nullptr;                /* cfg.relay_controller */
  amcc_rmanp_receiver *rx_ = nullptr;
  ns3::Ptr<ns3::Socket> in_, ctl_;
  std::vector<ns3::Ptr<ns3::Socket>> down_;
  ns3::EventId ev_;
  bool finished_ = false;
  double t_last_ = 0;
};

amcc_time rmanp_now ();
/* The byte at offset pos of the transferred file (receivers check every byte against it). */
static inline uint8_t rmanp_file_byte (uint64_t pos) { return (uint8_t) ((pos * 2654435761u) >> 13); }
#endif
