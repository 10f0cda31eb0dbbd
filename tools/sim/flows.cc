/* flows.cc - the competing flows of a scenario ([[flow]]), as tools/testbed/flowgen.py runs
 * them: bulk TCP (one connection per on-period, NewReno or CUBIC chosen per socket), UDP CBR and
 * square waves (1200-byte datagrams, paced at rate_bps of UDP payload while on); each sink
 * writes flows/NAME.csv, `time_s,bytes` every second, idle seconds too. */
#include "ns3/inet-socket-address.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-cubic.h"
#include "ns3/tcp-linux-reno.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/udp-socket-factory.h"
#include "sim.h"

using namespace ns3;

static const uint32_t UDP_SIZE = 1200;        /* flowgen's datagram payload */
static const uint32_t TCP_CHUNK = 64 * 1024;  /* bytes handed to the socket at a time */
/* Linux autotunes a sender's buffer to about 2 x cwnd (tcp_sndbuf_expand; tcp_wmem's initial
 * 16 KiB at least): the bytes it still sends after flowgen's close() at a period's end. The
 * socket's 4 MiB buffer, kept full, drained for minutes after an on-period (250 kbit/s for
 * 2 min in pgmcc-tcp-fairness); so the flow keeps at most this much in it. */
static const uint32_t TCP_BUF_MIN = 16 * 1024;

FlowSink::FlowSink (const SimConfig &cfg, bool tcp, uint16_t port, const std::string &csv_path)
  : cfg_ (cfg), tcp_ (tcp), port_ (port)
{
  csv_ = fopen (csv_path.c_str (), "w");
  if (csv_)
    fprintf (csv_, "time_s,bytes\n");
}

FlowSink::~FlowSink ()
{
  if (csv_)
    fclose (csv_);
}

void
FlowSink::StartApplication ()
{
  listen_ = Socket::CreateSocket (GetNode (), tcp_ ? TcpSocketFactory::GetTypeId ()
      : UdpSocketFactory::GetTypeId ());
  listen_->Bind (InetSocketAddress (Ipv4Address::GetAny (), port_));
  if (tcp_) {
    listen_->Listen ();
    listen_->SetAcceptCallback (MakeNullCallback<bool, Ptr<Socket>, const Address &> (),
        MakeCallback (&FlowSink::OnAccept, this));
  } else
    listen_->SetRecvCallback (MakeCallback (&FlowSink::OnRecv, this));
  Simulator::Schedule (Seconds (1.0), &FlowSink::Row, this);
}

void
FlowSink::StopApplication ()
{
  listen_->Close ();
  for (auto &s : conns_)
    s->Close ();
  if (csv_)
    fflush (csv_);
}

void
FlowSink::OnAccept (Ptr<Socket> s, const Address &)
{
  s->SetRecvCallback (MakeCallback (&FlowSink::OnRecv, this));
  conns_.push_back (s);
}

void
FlowSink::OnRecv (Ptr<Socket> s)
{
  Ptr<Packet> p;
  while ((p = s->Recv ()))
    bytes_ += p->GetSize ();
}

void
FlowSink::Row ()
{
  double now = Simulator::Now ().GetSeconds ();
  if (csv_)
    fprintf (csv_, "%.6f,%llu\n", cfg_.t0 + now, (unsigned long long) bytes_);
  bytes_ = 0;
  if (now + 1.0 <= cfg_.duration_s + 1e-9)
    Simulator::Schedule (Seconds (1.0), &FlowSink::Row, this);
}

FlowSource::FlowSource (const SimFlow &f, Ipv4Address dst) : f_ (f), dst_ (dst)
{
}

void
FlowSource::StartApplication ()
{
  for (auto &p : f_.on) {
    Simulator::Schedule (Seconds (p.first), &FlowSource::Begin, this, p.second);
  }
}

void
FlowSource::StopApplication ()
{
  End ();
}

void
FlowSource::Begin (double until_s)
{
  End ();
  on_ = true;
  bool tcp = f_.kind.rfind ("tcp", 0) == 0;
  if (tcp) {
    /* "reno" is the testbed's Linux reno: ns-3's TcpLinuxReno counts the segments each ACK
     * covers (Linux's tcp_cong_avoid_ai); TcpNewReno adds MSS^2/cwnd per ACK, so with delayed
     * ACKs it grows half a segment per RTT, loses half as often at the same share, and the
     * equation-based sessions took 1.5-2x their testbed share (docs/sim.md, cross-validation) */
    TypeId cc = f_.cc == "cubic" ? TcpCubic::GetTypeId () : TcpLinuxReno::GetTypeId ();
    sock_ = GetNode ()->GetObject<TcpL4Protocol> ()->CreateSocket (cc);
    sock_->Bind ();
    sock_->Connect (InetSocketAddress (dst_, f_.port));
    cwnd_ = 0;
    sock_->TraceConnectWithoutContext ("CongestionWindow", MakeCallback (&FlowSource::OnCwnd, this));
    sock_->SetSendCallback (MakeCallback (&FlowSource::FillTcp, this));
    FillTcp (sock_, 0);
  } else {
    sock_ = Socket::CreateSocket (GetNode (), UdpSocketFactory::GetTypeId ());
    sock_->Bind ();
    sock_->Connect (InetSocketAddress (dst_, f_.port));
    SendUdp ();
  }
  Simulator::Schedule (Seconds (until_s) - Simulator::Now (), &FlowSource::End, this);
}

void
FlowSource::End ()
{
  on_ = false;
  Simulator::Cancel (ev_);
  if (sock_) {
    sock_->SetSendCallback (MakeNullCallback<void, Ptr<Socket>, uint32_t> ());
    sock_->Close ();
    sock_ = nullptr;
  }
}

void
FlowSource::FillTcp (Ptr<Socket> s, uint32_t)
{
  UintegerValue size;
  s->GetAttribute ("SndBufSize", size);
  uint32_t cap = std::max (TCP_BUF_MIN, 2 * cwnd_);
  /* window_bytes: the testbed clamps the receiver's window (TCP_WINDOW_CLAMP); ns-3 3.37 crashes
   * in TcpRateLinux::SkbSent once a small receive buffer holds out-of-order data (zero-window
   * probes), so the sender holds no more than the window instead: at most that in flight */
  if (f_.window)
    cap = std::min (cap, f_.window);
  while (on_ && s->GetTxAvailable () > 0) {
    uint32_t held = (uint32_t) size.Get () - s->GetTxAvailable ();
    if (held >= cap)
      break;
    uint32_t n = std::min ({s->GetTxAvailable (), TCP_CHUNK, cap - held});
    if (s->Send (Create<Packet> (n)) < 0)
      break;
  }
}

void
FlowSource::SendUdp ()
{
  if (!on_)
    return;
  sock_->Send (Create<Packet> (UDP_SIZE));
  ev_ = Simulator::Schedule (Seconds (8.0 * UDP_SIZE / f_.rate_bps), &FlowSource::SendUdp, this);
}
