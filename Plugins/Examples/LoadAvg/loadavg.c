int pw_loadavg_placeholder(void){return 0;}
