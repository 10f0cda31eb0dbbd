/* asmp_controller.h - the ASMP adapter's roles (asmp_controller.c), for protocols built on ASMP:
 * ASSP runs one ASMP sender per stream and the ASMP receiver on its current stream, so its adapter
 * embeds these structs as first members and calls these functions. Not installed. */
#ifndef AMCC_ASMP_CONTROLLER_H
#define AMCC_ASMP_CONTROLLER_H
#include "amcc/asmp.h"
#include "controller_impl.h"

typedef struct {
  amcc_sender base;
  amcc_asmp_sender *tx;
} asmp_tx;

typedef struct {
  amcc_receiver base;
  amcc_asmp_params p;
  amcc_asmp_receiver rx;        /* from here on: reset by amcc_asmp_rx_restart */
  amcc_time report_due;         /* eq. 20 time when earlier than the regular RTCP, else NONE */
  amcc_asmp_report last;        /* last report made (stats) */
  int have_last;
  uint64_t suppressed, echoes;
} asmp_rx;

int amcc_asmp_tx_init (asmp_tx *a, const amcc_ctl_config *cfg, amcc_time now);
void amcc_asmp_tx_destroy (amcc_sender *s);
void amcc_asmp_tx_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter,
    uint32_t lsr, uint32_t dlsr, uint32_t a_ntp32);
amcc_app_result amcc_asmp_tx_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc,
    const char name[4], uint8_t subtype, const uint8_t *data, size_t len);
void amcc_asmp_tx_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc);
double amcc_asmp_tx_rate (amcc_sender *s, amcc_time now);
int amcc_asmp_tx_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap,
    amcc_app *out);
void amcc_asmp_tx_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st);
int amcc_asmp_tx_claim (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len, amcc_claim *c);
int amcc_asmp_tx_set_claim_rate (amcc_sender *s, uint8_t *buf, size_t len, double rate_bps);

/* p: the receiver's ASMP parameters (cfg.initial_bps > 0 overrides p's initial rate) */
void amcc_asmp_rx_init (asmp_rx *a, const amcc_ctl_config *cfg, const amcc_asmp_params *p);
/* a new measurement with the same parameters (counters kept) */
void amcc_asmp_rx_restart (asmp_rx *a);
void amcc_asmp_rx_destroy (amcc_receiver *r);
void amcc_asmp_rx_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt);
void amcc_asmp_rx_on_sender_report (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    uint32_t members);
amcc_app_result amcc_asmp_rx_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    const char name[4], uint8_t subtype, const uint8_t *data, size_t len);
int amcc_asmp_rx_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_app *out);
amcc_time amcc_asmp_rx_early_due (amcc_receiver *r, amcc_time now);
void amcc_asmp_rx_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st);

#endif
