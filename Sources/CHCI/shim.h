// BlueZ's kernel-interface headers (libbluetooth-dev): sockaddr_hci,
// hci_filter, hci_dev_info and the HCI constants. The ioctl numbers are
// function-like macros Swift cannot import, so they are re-exported as values.
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

static const unsigned long fp_HCIGETDEVLIST = HCIGETDEVLIST;
static const unsigned long fp_HCIGETDEVINFO = HCIGETDEVINFO;
static const int fp_HCI_MAX_DEV = HCI_MAX_DEV;
