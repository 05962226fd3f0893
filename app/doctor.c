#include "app/doctor.h"

#include "sandbox/doctor.h"

void at_app_doctor(struct at_doctor *out)
{
	at_sandbox_doctor(out);
}
