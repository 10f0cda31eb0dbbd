// test_cpp.cpp - proves lib/cc is usable from C++: every public header in one C++ translation
// unit (extern "C" linkage), a few calls that must link against the C library.
#include <amcc/amcc.h>
#include <amcc/seq.h>
#include <amcc/loss.h>
#include <amcc/jitter.h>
#include <amcc/rtt.h>
#include <amcc/tcpmodel.h>
#include <amcc/rtcp_app.h>
#include <amcc/asmp.h>
#include <amcc/pacing.h>
#include <amcc/controller.h>
#include <amcc/proof.h>
#include <amcc/avmrc.h>
#include <amcc/rmanp.h>
#include <amcc/fec.h>
#include <amcc/h264fill.h>
#if defined(__has_include)
#if __has_include(<amcc/tfmcc.h>)
#include <amcc/tfmcc.h>
#endif
#if __has_include(<amcc/pgmcc.h>)
#include <amcc/pgmcc.h>
#define HAVE_PGMCC 1
#endif
#endif
#include <cstring>
#include "amtest.h"

static void
test_cpp_calls (void)
{
  AMT_NEAR (amcc_pftk_rate (1000, 0.1, 0.01), 112332.234, 0.01);   // test_models.c hand value
  AMT_CHECK (std::strcmp (amcc_strerror (AMCC_ERR_TRUNCATED), "truncated input") == 0);
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  AMT_CHECK (tx != nullptr);
  AMT_NEAR (amcc_asmp_sender_rate (tx, 0), p.initial_rate_bps, 0);
  amcc_asmp_sender_free (tx);
  amcc_seq s;
  amcc_seq_init (&s);
  AMT_CHECK (amcc_seq_update (&s, 1, nullptr) == AMCC_SEQ_PROBATION);
  uint8_t buf[AMCC_ASMP_REPORT_LEN];
  amcc_asmp_report r = amcc_asmp_report ();
  r.rate_bps = 8e5;
  size_t n = 0;
  AMT_CHECK (amcc_asmp_report_encode (&r, buf, sizeof buf, &n) == AMCC_OK && n == AMCC_ASMP_REPORT_LEN);
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  amcc_sender *snd = amcc_sender_new (amcc_protocol_find ("tfmcc"), &c, 0);
  AMT_CHECK (snd != nullptr && amcc_sender_rate (snd, 0) == c.initial_bps);
  amcc_sender_free (snd);
#ifdef HAVE_PGMCC
  AMT_NEAR (amcc_pgmcc_throughput (10, 0.01), 1, 1e-12);          // test_pgmcc.c hand value
  snd = amcc_sender_new (amcc_protocol_find ("pgmcc"), &c, 0);
  AMT_CHECK (snd != nullptr && amcc_sender_rate (snd, 0) == c.initial_bps);
  amcc_sender_free (snd);
#endif
  amcc_receiver *avr = amcc_receiver_new (amcc_protocol_find ("avmrc"), &c, 0);
  AMT_CHECK (avr != nullptr && amcc_receiver_wanted_layers (avr) == 1);
  amcc_receiver_free (avr);
  double cum[AMCC_AVMRC_PAPER_LAYERS];
  AMT_CHECK (amcc_avmrc_layer_rates (cum, AMCC_AVMRC_PAPER_LAYERS, 256e3, 1.5) == AMCC_OK);
  AMT_NEAR (cum[8], 6561e3, 1e-6);
  amcc_rmanp_params rp;
  amcc_rmanp_params_init (&rp);
  AMT_NEAR (amcc_rmanp_relayed_rate (&rp, 6400), 6336, 1e-9);      // test_rmanp.c hand value
  amcc_relay *rel = amcc_relay_new (amcc_protocol_find ("rmanp"), &c, 0);
  AMT_CHECK (rel != nullptr && amcc_relay_rate (rel, 0) == 0);
  amcc_relay_free (rel);
  amcc_fec_params fp;
  amcc_fec_params_default (&fp);
  amcc_fec_choice fc;
  AMT_CHECK (amcc_fec_choose (&fp, 0.01, 100, &fc) == AMCC_OK && fc.columns == 3);  // test_fec.c
}

int
main ()
{
  AMT_RUN (test_cpp_calls);
  return amt_summary ();
}
