struct P{}
