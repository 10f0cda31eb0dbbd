#include <gst/check/gstcheck.h>
static Suite *s_suite (void) { Suite *s = suite_create ("test-helpers"); return s; }
GST_CHECK_MAIN (s);
