/* proof.c - proof of reception (see amcc/proof.h). */
#include "amcc/proof.h"
#include "amcc/rtt.h"

void
amcc_sr_memory_note (amcc_sr_memory *m, amcc_time at, uint32_t ntp_mid32)
{
  m->sr[m->next].ntp = ntp_mid32;
  m->sr[m->next].at = at;
  m->next = (m->next + 1) % AMCC_SR_MEMORY;
  if (m->n < AMCC_SR_MEMORY)
    m->n++;
}

int
amcc_sr_memory_find (const amcc_sr_memory *m, uint32_t lsr, amcc_time *at)
{
  for (unsigned i = 0; lsr && i < m->n; i++)
    if (m->sr[i].ntp == lsr) {
      *at = m->sr[i].at;
      return 1;
    }
  return 0;
}

int
amcc_sr_memory_proves (const amcc_sr_memory *m, amcc_time now, uint32_t lsr, uint32_t dlsr,
    amcc_time slack, amcc_time *at)
{
  amcc_time t;

  if (!amcc_sr_memory_find (m, lsr, &t) || now < t || slack < 0)
    return 0;
  if ((uint64_t) dlsr > (uint64_t) amcc_time_to_ntp_mid32 (now - t + slack) + 1)
    return 0;
  if (at)
    *at = t;
  return 1;
}
