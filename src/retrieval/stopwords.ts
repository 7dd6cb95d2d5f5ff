// Stop words, matched against the lower-cased, accent-folded surface form (before stemming).
//
// Common English function words (the same ground as the benchmarks' small list), plus the
// apostrophe-less contractions the tokeniser produces ("don't" -> "dont"). A longer list
// with question-form words ("likely", "ever", "any", "may", "kind", ...) was measured on
// LoCoMo and did not help, so it is not used.

const WORDS = `
a an and are as at be been being but by can could did do does doing done for from had has have having
he her hers herself him himself his how i if in into is it its itself just me my myself no nor not of off
on once or our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where
which while who whom whose why will with would you your yours yourself yourselves
s t d m ll re ve
im ive youre youve youd youll hes shes theyre theyve theyd theyll weve isnt arent wasnt
werent dont doesnt didnt wont wouldnt cant couldnt shouldnt hasnt havent hadnt thats whats theres heres
`;

export const DEFAULT_STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));
