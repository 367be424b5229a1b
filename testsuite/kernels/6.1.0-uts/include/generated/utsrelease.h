#define UTS_RELEASE "6.1.0-uts-amd64"
