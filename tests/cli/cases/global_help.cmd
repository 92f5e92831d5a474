$CM --help; $CM -V; $CM help check | head -1; $CM help nosuch
